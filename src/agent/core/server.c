#include "agent/core/server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/core/auth.h"
#include "lib/listen_gate.h"
#include "agent/core/log.h"
#include "lib/secret.h"

#define DEFAULT_BODY_MAX ((size_t)1 << 20)
#define CONNECTION_MEMORY (512 * 1024)
/* Connections are threads, but only ones with a request: the gate
 * (listen_gate.h) holds the rest, and unauthenticated ones are answered and
 * closed at once. So this bounds the owner's own concurrency. */
#define CONNECTION_LIMIT 256u
/* An authenticated connection left idle (keep-alive) is closed after this;
 * a streaming response that is waiting for output is not idle. */
#define IDLE_TIMEOUT_S 300u
/* Until the token is checked: the gate only passes on whole headers, so this
 * only matters should MHD still wait for something the gate took for one. */
#define UNAUTHENTICATED_TIMEOUT_S 10u

static const char unauthorized[] =
	"{\"error\":\"Unauthorized: missing or invalid " AG_TOKEN_HEADER "\"}";

static int method_is(const char *route_method, const char *method)
{
	if (strcmp(route_method, method) == 0)
		return 1;
	/* HEAD is GET without the body; MHD drops the body itself. */
	return strcmp(method, MHD_HTTP_METHOD_HEAD) == 0 && strcmp(route_method, MHD_HTTP_METHOD_GET) == 0;
}

static int path_matches(const struct ag_route *r, const char *path)
{
	if (r->match == AG_PREFIX)
		return strncmp(path, r->path, strlen(r->path)) == 0;
	return strcmp(path, r->path) == 0;
}

/* The route for REQ, or NULL with ALLOW listing the methods the path does
 * accept (empty when the path is unknown). */
static const struct ag_route *find_route(const struct ag_route *routes, struct ag_req *req,
					 char *allow, size_t allow_size)
{
	const struct ag_route *r;

	allow[0] = '\0';
	for (r = routes; r->method; r++) {
		if (!path_matches(r, req->path))
			continue;
		if (method_is(r->method, req->method)) {
			req->subpath = req->path + (r->match == AG_PREFIX ? strlen(r->path) : strlen(req->path));
			return r;
		}
		if (!strstr(allow, r->method)) {
			size_t used = strlen(allow);

			snprintf(allow + used, allow_size - used, "%s%s", used ? ", " : "", r->method);
		}
	}
	return NULL;
}

static enum MHD_Result reply_unauthorized(struct ag_req *req)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(
		sizeof unauthorized - 1, (void *)unauthorized, MHD_RESPMEM_PERSISTENT);

	if (resp) {
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
		/* Keep-alive is for the owner: a peer without the token must not
		 * park on a connection thread. */
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	}
	return ag_reply_queue(req, MHD_HTTP_UNAUTHORIZED, resp);
}

static enum MHD_Result reply_not_allowed(struct ag_req *req, const char *allow)
{
	struct MHD_Response *resp =
		ag_json_response(ag_refusal(req->path, "METHOD_NOT_ALLOWED", "Method not allowed: %s %s", req->method, req->path));

	if (resp)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
	return ag_reply_queue(req, MHD_HTTP_METHOD_NOT_ALLOWED, resp);
}

static enum MHD_Result reply_too_large(struct ag_req *req)
{
	return ag_reply_json(req, MHD_HTTP_CONTENT_TOO_LARGE,
			     ag_refusal(req->path, "INVALID_REQUEST_BODY", "Request body too large: %s", req->path));
}

static size_t body_max(const struct ag_route *r)
{
	return r->body_max ? r->body_max : DEFAULT_BODY_MAX;
}

/* A Content-Length over the limit is refused before a byte of the body is read. */
static int declared_too_large(const struct ag_req *req)
{
	const char *cl = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_CONTENT_LENGTH);

	return cl && strtoull(cl, NULL, 10) > body_max(req->route);
}

/* First call for a request: headers are in, the body (if any) is not.
 * Refusals are answered at once, so their bodies are never read. */
static enum MHD_Result begin(struct ag_server *srv, struct ag_req *req)
{
	const struct ag_ctx *ctx = srv->ctx;
	const char *given = NULL;
	size_t given_len = 0;
	char allow[128];

	/* Before routing, so an unauthenticated client learns nothing, not even
	 * which paths exist. */
	if (MHD_lookup_connection_value_n(req->conn, MHD_HEADER_KIND, AG_TOKEN_HEADER,
					  strlen(AG_TOKEN_HEADER), &given, &given_len) != MHD_YES)
		given = NULL;
	if (!ax_secret_equal(ctx->token, ctx->token_len, given, given_len))
		return reply_unauthorized(req);
	MHD_set_connection_option(req->conn, MHD_CONNECTION_OPTION_TIMEOUT, IDLE_TIMEOUT_S);
	req->route = find_route(srv->routes, req, allow, sizeof allow);
	if (!req->route) {
		if (allow[0])
			return reply_not_allowed(req, allow);
		return ag_reply_json(req, MHD_HTTP_NOT_FOUND, ag_refusal(req->path, "NOT_FOUND", "Not found: %s", req->path));
	}
	if (req->route->body == AG_BODY_BUFFER && declared_too_large(req))
		return reply_too_large(req);
	/* Answer on the last call, once MHD has read the whole request: a reply
	 * queued now makes MHD drop the rest and close the connection, which is
	 * right for the refusals above but would defeat keep-alive here. */
	return MHD_YES;
}

static enum MHD_Result take_body(struct ag_req *req, const char *data, size_t len)
{
	const struct ag_route *r = req->route;
	size_t max = body_max(r);
	char *grown;

	if (r->body == AG_BODY_STREAM)
		return r->on_body(req, data, len) == 0 ? MHD_YES : MHD_NO;
	if (r->body != AG_BODY_BUFFER || req->body_too_large)
		return MHD_YES;
	/* MHD cannot answer mid-body: remember, drain, and answer 413 at the end. */
	if (len > max - req->body_len) {
		req->body_too_large = 1;
		free(req->body);
		req->body = NULL;
		req->body_len = 0;
		return MHD_YES;
	}
	grown = realloc(req->body, req->body_len + len + 1);
	if (!grown)
		return MHD_NO;
	memcpy(grown + req->body_len, data, len);
	req->body = grown;
	req->body_len += len;
	req->body[req->body_len] = '\0';
	return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **con_cls)
{
	struct ag_server *srv = cls;
	struct ag_req *req = *con_cls;

	if (!req) {
		req = calloc(1, sizeof *req);
		if (!req)
			return MHD_NO;
		*con_cls = req;
		req->conn = conn;
		req->ctx = srv->ctx;
		req->method = method;
		req->path = url;
		return begin(srv, req);
	}
	if (*upload_data_size) {
		size_t n = *upload_data_size;

		*upload_data_size = 0;
		return req->responded ? MHD_YES : take_body(req, upload_data, n);
	}
	if (req->responded)
		return MHD_YES;
	if (req->body_too_large)
		return reply_too_large(req);
	if (req->route->body == AG_BODY_BUFFER && !req->body) {
		/* Handlers may rely on a body string, even an empty one. */
		req->body = calloc(1, 1);
		if (!req->body)
			return MHD_NO;
	}
	return req->route->handle(req);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode why)
{
	struct ag_req *req = *con_cls;

	if (!req)
		return;
	if (req->free_state)
		req->free_state(req->state);
	free(req->body);
	free(req);
	*con_cls = NULL;
}

static void __attribute__((format(printf, 2, 0))) on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	ag_vlog(fmt, ap);
}

/* On the gate's thread: a connection whose request header has arrived. */
static void pass_to_mhd(void *cls, int fd, const struct sockaddr *addr, socklen_t addrlen)
{
	struct ag_server *srv = cls;

	/* MHD closes FD itself when it refuses it (at CONNECTION_LIMIT). */
	MHD_add_connection(srv->daemon, fd, addr, addrlen);
}

int ag_server_start(struct ag_server *srv, int listen_fd, const struct ag_ctx *ctx,
		    const struct ag_route *routes, ax_error *err)
{
	/* A thread per connection: handlers and streaming content readers may
	 * block on a child's output without stalling other clients. Threads
	 * only touch the stack they use, so resident memory stays small. The
	 * gate accepts, so that idle and slow peers get no thread. */
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
			 MHD_USE_POLL | MHD_USE_ITC | MHD_USE_ERROR_LOG | MHD_USE_NO_LISTEN_SOCKET;

	srv->ctx = ctx;
	srv->routes = routes;
	srv->listen_fd = listen_fd;
	srv->gate = NULL;
	srv->daemon = MHD_start_daemon(flags, 0, NULL, NULL, on_request, srv,
				       MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, NULL,
				       MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
				       MHD_OPTION_CONNECTION_LIMIT, CONNECTION_LIMIT,
				       MHD_OPTION_CONNECTION_TIMEOUT, UNAUTHENTICATED_TIMEOUT_S,
				       /* Uploads arrive in pieces of about half this; the 32 KiB
				        * default costs a poll+recv+write per 16 KiB. */
				       MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONNECTION_MEMORY,
				       MHD_OPTION_END);
	if (!srv->daemon)
		return ax_fail(err, AX_CODE_SERVER, "cannot start the HTTP server on fd %d", listen_fd);
	if (ax_gate_start(&srv->gate, listen_fd, NULL, pass_to_mhd, srv, err) < 0) {
		MHD_stop_daemon(srv->daemon);
		srv->daemon = NULL;
		return -1;
	}
	return 0;
}

void ag_server_quiesce(struct ag_server *srv)
{
	if (!srv->gate)
		return;
	ax_gate_stop(srv->gate);
	srv->gate = NULL;
	close(srv->listen_fd);
	srv->listen_fd = -1;
}

void ag_server_stop(struct ag_server *srv)
{
	/* The gate first: it hands connections to the daemon. */
	ax_gate_stop(srv->gate);
	srv->gate = NULL;
	if (srv->daemon)
		MHD_stop_daemon(srv->daemon);
	srv->daemon = NULL;
}
