/* libmicrohttpd glue: collect a request, check the key, route, answer JSON. */
#include "engine/http_server.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <microhttpd.h>

#include "engine/proxy.h"
#include "lib/listen_gate.h"
#include "lib/secret.h"

#define MAX_BODY (1024 * 1024)
/* Connections are threads, but only ones with a request: the gate
 * (listen_gate.h) holds the rest, and requests without the key are
 * answered and closed at once. So this bounds keyed clients' concurrency. */
#define CONNECTION_LIMIT 1024u
/* A connection with the key (or on the unix socket) left idle (keep-alive)
 * is closed after this. */
#define IDLE_TIMEOUT_S 120u
/* Until the key is checked: the gate only passes on whole headers, so this
 * only matters should MHD still wait for something the gate took for one. */
#define UNAUTHENTICATED_TIMEOUT_S 10u

typedef struct conn_state {
	char *body;
	size_t len;
	bool too_large;
	bool keyless;   /* TCP without the key: only /health gets this far */
	bool proxied;   /* a server-proxy request on a reused connection (redirect_to_proxy) */
} conn_state;

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	json_t *query = cls, *list = json_object_get(query, key);

	(void)kind;
	if (!list) {
		list = json_array();
		json_object_set_new(query, key, list);
	}
	json_array_append_new(list, json_string(value ? value : ""));
	return MHD_YES;
}

static void request_id(struct MHD_Connection *c, char out[65])
{
	const char *given = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Request-ID");
	unsigned char raw[16];
	size_t i;

	if (given && *given && strlen(given) < 65 && !strpbrk(given, "\r\n")) {
		snprintf(out, 65, "%s", given);
		return;
	}
	/* The spec types X-Request-ID as a UUID (the Python server sends bare hex). */
	if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
		memset(raw, 0, sizeof raw);
	raw[6] = (unsigned char)((raw[6] & 0x0f) | 0x40);
	raw[8] = (unsigned char)((raw[8] & 0x3f) | 0x80);
	for (i = 0; i < sizeof raw; i++)
		out += sprintf(out, "%02x%s", raw[i], i == 3 || i == 5 || i == 7 || i == 9 ? "-" : "");
}

/* MUST_CLOSE: end the connection after the answer (no keep-alive). */
static enum MHD_Result answer(struct MHD_Connection *c, const ax_resp *r, const char *rid, bool must_close)
{
	char *text = r->text && json_is_string(r->body) ? strdup(json_string_value(r->body))
		     : r->body ? json_dumps(r->body, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	struct MHD_Response *m;
	enum MHD_Result ret;

	m = MHD_create_response_from_buffer(text ? strlen(text) : 0, text ? text : (char *)"",
					    text ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	if (!m) {
		free(text);
		return MHD_NO;
	}
	if (text)
		MHD_add_response_header(m, MHD_HTTP_HEADER_CONTENT_TYPE, r->text ? "text/plain" : "application/json");
	MHD_add_response_header(m, "X-Request-ID", rid);
	if (r->location[0])
		MHD_add_response_header(m, MHD_HTTP_HEADER_LOCATION, r->location);
	if (r->size_header[0])
		MHD_add_response_header(m, "X-Allox-Snapshot-Size", r->size_header);
	if (must_close)
		MHD_add_response_header(m, MHD_HTTP_HEADER_CONNECTION, "close");
	ret = MHD_queue_response(c, (unsigned)r->status, m);
	MHD_destroy_response(m);
	return ret;
}

/* The original server mounts every route with and without /v1. */
static const char *route_path(const char *url)
{
	return strncmp(url, "/v1/", 4) == 0 ? url + 3 : url;
}

/* First call, the header in and no body read yet: check the key here, so a
 * client without it is answered (and closed) before it can send a body or
 * keep the connection. */
static enum MHD_Result begin(const ax_http_server *s, struct MHD_Connection *c, const char *url, conn_state *st)
{
	const char *key;
	ax_resp resp = { 0 };
	char rid[65];
	enum MHD_Result ret;

	/* The proxy checks its own credentials, after the redirect. */
	if (!s->handle && ax_proxy_path(route_path(url))) {
		st->proxied = true;
		return MHD_YES;
	}
	if (s->require_key) {
		key = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "OPEN-SANDBOX-API-KEY");
		if (!key || !*key)
			ax_resp_error(&resp, 401, "MISSING_API_KEY", "Authentication credentials are missing");
		else if (!ax_secret_equal(s->engine->api_key, strlen(s->engine->api_key), key, strlen(key)))
			ax_resp_error(&resp, 401, "INVALID_API_KEY", "Authentication credentials are invalid");
	}
	if (resp.status && strncmp(route_path(url), "/health", 7) == 0) {
		json_decref(resp.body);
		st->keyless = true;
		return MHD_YES;
	}
	if (resp.status) {
		request_id(c, rid);
		ret = answer(c, &resp, rid, true);
		json_decref(resp.body);
		return ret;
	}
	MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, IDLE_TIMEOUT_S);
	return MHD_YES;
}

static void append_escaped(char *out, size_t max, const char *s, const char *keep)
{
	size_t n = strlen(out);

	for (; *s && n + 4 < max; s++) {
		unsigned char ch = (unsigned char)*s;

		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || strchr(keep, ch))
			out[n++] = (char)ch;
		else
			n += (size_t)snprintf(out + n, max - n, "%%%02X", ch);
	}
	out[n] = '\0';
}

/* The gate hands the proxy a connection's first request only (proxy.h): a
 * client that reused a connection for a proxy request is sent to the same
 * URL on a new one (307 keeps the method and body), and this one closes. */
static void redirect_to_proxy(struct MHD_Connection *c, const char *url, const ax_req *req, ax_resp *resp)
{
	const char *k, *host = req->host && *req->host && !strpbrk(req->host, " \r\n/") ? req->host : "localhost";
	json_t *vals, *v;
	size_t i;
	char sep = '?';

	(void)c;
	snprintf(resp->location, sizeof resp->location, "http://%s", host);
	append_escaped(resp->location, sizeof resp->location, url, "/-._~!$&'()*+,;=:@");
	json_object_foreach(req->query, k, vals)
		json_array_foreach(vals, i, v) {
			size_t n = strlen(resp->location);

			snprintf(resp->location + n, sizeof resp->location - n, "%c", sep);
			append_escaped(resp->location, sizeof resp->location, k, "-._~");
			n = strlen(resp->location);
			snprintf(resp->location + n, sizeof resp->location - n, "=");
			append_escaped(resp->location, sizeof resp->location, json_string_value(v), "-._~");
			sep = '&';
		}
	ax_resp_error(resp, 307, "GENERAL::REDIRECT", "a server-proxy request goes on a connection of its own");
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
				  const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	const ax_http_server *s = cls;
	conn_state *st = *con_cls;
	ax_req req;
	ax_resp resp = { 0 };
	char rid[65];
	enum MHD_Result ret;

	(void)version;
	if (!st) {
		st = calloc(1, sizeof *st);
		if (!st)
			return MHD_NO;
		*con_cls = st;
		return begin(s, c, url, st);
	}
	if (*upload_size) {
		if (st->len + *upload_size > MAX_BODY) {
			st->too_large = true;
		} else if (!st->too_large) {
			char *grown = realloc(st->body, st->len + *upload_size + 1);

			if (!grown)
				return MHD_NO;
			st->body = grown;
			memcpy(st->body + st->len, upload, *upload_size);
			st->len += *upload_size;
			st->body[st->len] = '\0';
		}
		*upload_size = 0;
		return MHD_YES;
	}

	request_id(c, rid);
	memset(&req, 0, sizeof req);
	req.method = method;
	req.host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
	req.path = route_path(url);
	req.body = st->body;
	req.body_len = st->len;
	req.egress_auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "OPENSANDBOX-EGRESS-AUTH");
	req.unix_socket = s->unix_socket;
	req.query = json_object();
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, collect_arg, req.query);

	if (st->proxied)
		redirect_to_proxy(c, url, &req, &resp);
	else if (st->too_large)
		ax_resp_error(&resp, 413, "SANDBOX::INVALID_PARAMETER", "request body larger than %d bytes", MAX_BODY);
	else
		(s->handle ? s->handle : ax_engine_handle)(s->engine, &req, &resp);
	ret = answer(c, &resp, rid, st->keyless || st->proxied);
	json_decref(resp.body);
	json_decref(req.query);
	return ret;
}

static void on_done(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	conn_state *st = *con_cls;

	(void)cls;
	(void)c;
	(void)toe;
	if (st) {
		free(st->body);
		free(st);
		*con_cls = NULL;
	}
}

/* On the gate's thread: a connection whose request header has arrived. */
static void pass_to_mhd(void *cls, int fd, const struct sockaddr *addr, socklen_t addrlen)
{
	ax_http_server *srv = cls;

	/* The server proxy relays its connections itself (proxy.h). */
	if (!srv->handle && ax_proxy_take(srv, fd))
		return;
	/* MHD closes FD itself when it refuses it (at CONNECTION_LIMIT). */
	MHD_add_connection(srv->daemon, fd, addr, addrlen);
}

int ax_http_serve(ax_http_server *srv, ax_engine *e, int fd, bool require_key, ax_error *err)
{
	struct sockaddr_storage a;
	socklen_t alen = sizeof a;

	/* Zeroed: the analyzer cannot tell getsockname fills it. */
	memset(&a, 0, sizeof a);
	srv->engine = e;
	srv->require_key = require_key;
	srv->unix_socket = getsockname(fd, (struct sockaddr *)&a, &alen) == 0 && a.ss_family == AF_UNIX;
	srv->gate = NULL;
	/* A thread per connection (handlers block: a create waits for its
	 * sandbox), but the gate accepts, so idle and slow peers get none. */
	srv->daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
				     MHD_USE_POLL | MHD_USE_ITC | MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ERROR_LOG,
			     0, NULL, NULL, on_request, srv, MHD_OPTION_NOTIFY_COMPLETED, on_done, NULL,
			     MHD_OPTION_CONNECTION_LIMIT, CONNECTION_LIMIT, MHD_OPTION_CONNECTION_TIMEOUT,
			     UNAUTHENTICATED_TIMEOUT_S, MHD_OPTION_THREAD_STACK_SIZE, (size_t)(256 * 1024), MHD_OPTION_END);
	if (!srv->daemon)
		return ax_fail(err, AX_CODE_ENGINE, "cannot start the HTTP server");
	if (ax_gate_start(&srv->gate, fd, NULL, pass_to_mhd, srv, err) < 0) {
		MHD_stop_daemon(srv->daemon);
		srv->daemon = NULL;
		return -1;
	}
	return 0;
}

void ax_http_stop(ax_http_server *srv)
{
	/* The gate first: it hands connections to the daemon. */
	ax_gate_stop(srv->gate);
	srv->gate = NULL;
	if (srv->daemon)
		MHD_stop_daemon(srv->daemon);
	srv->daemon = NULL;
}
