/* The /sandboxes routes: request in, domain call (sandbox.h), answer out. */
#include "engine/routes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/proxy.h"
#include "engine/request.h"
#include "engine/sandbox.h"

void ax_route_sandbox_create(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp)
{
	json_t *body = ax_parse_body(req, resp, true);
	ax_error err;

	(void)a;
	if (body)
		ax_answer(resp, 202, ax_sandbox_create(e, body, &err), &err);
	json_decref(body);
}

void ax_route_sandbox_list(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp)
{
	ax_page page;
	ax_error err;

	(void)a;
	if (ax_page_param(req, &page, resp) == 0)
		ax_answer(resp, 200,
			  ax_sandbox_list(e, json_object_get(req->query, "state"), ax_query(req, "metadata"), &page, &err),
			  &err);
}

void ax_route_sandbox_get(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp)
{
	ax_error err;

	(void)req;
	ax_answer(resp, 200, ax_sandbox_get(e, a->v[0], &err), &err);
}

void ax_route_sandbox_delete(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp)
{
	ax_error err;

	(void)req;
	ax_answer_empty(resp, 204, ax_sandbox_delete(e, a->v[0], &err), &err);
}

void ax_route_sandbox_pause(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp)
{
	ax_error err;

	(void)req;
	ax_answer_empty(resp, 202, ax_sandbox_pause(e, a->v[0], true, &err), &err);
}

void ax_route_sandbox_resume(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp)
{
	ax_error err;

	(void)req;
	ax_answer_empty(resp, 202, ax_sandbox_pause(e, a->v[0], false, &err), &err);
}

void ax_route_sandbox_renew(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp)
{
	json_t *body = ax_parse_body(req, resp, true);
	ax_error err;

	if (body)
		ax_answer(resp, 200, ax_sandbox_renew(e, a->v[0], body, &err), &err);
	json_decref(body);
}

void ax_route_sandbox_metadata(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp)
{
	json_t *body = ax_parse_body(req, resp, true);
	ax_error err;

	if (body)
		ax_answer(resp, 200, ax_sandbox_patch_metadata(e, a->v[0], body, &err), &err);
	json_decref(body);
}

/* use_server_proxy, a boolean; -1 with RESP for anything else. */
static int proxied(const ax_req *req, bool *on, ax_resp *resp)
{
	const char *v = ax_query(req, "use_server_proxy");

	*on = v && (strcmp(v, "true") == 0 || strcmp(v, "1") == 0);
	if (!v || *on || strcmp(v, "false") == 0 || strcmp(v, "0") == 0)
		return 0;
	ax_resp_error(resp, 400, "SANDBOX::INVALID_PARAMETER", "use_server_proxy must be true or false");
	return -1;
}

/* expires: epoch seconds in the future, or 0 when absent; -1 with RESP. */
static int expiry(ax_engine *e, const ax_req *req, unsigned long long *at, ax_resp *resp)
{
	const char *v = ax_query(req, "expires");
	char *end;

	*at = 0;
	if (!v)
		return 0;
	errno = 0;
	*at = strtoull(v, &end, 10);
	if (errno || end == v || *end || *v == '-' || strlen(v) > 20) {
		ax_resp_error(resp, 400, "SANDBOX::INVALID_PARAMETER", "expires must be epoch seconds");
		return -1;
	}
	if (*at <= (unsigned long long)ax_engine_now(e)) {
		ax_resp_error(resp, 400, "SANDBOX::INVALID_PARAMETER", "expires %s is not in the future", v);
		return -1;
	}
	return 0;
}

void ax_route_sandbox_endpoint(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp)
{
	unsigned long long expires;
	bool proxy;
	ax_error err;

	if (proxied(req, &proxy, resp) < 0 || expiry(e, req, &expires, resp) < 0)
		return;
	if (proxy && expires) {
		ax_resp_error(resp, 400, "SANDBOX::INVALID_PARAMETER", "use_server_proxy cannot be combined with expires");
		return;
	}
	/* On the unix socket the client is on this machine, where the direct
	 * endpoints are reachable, and a URL through the socket is none. */
	if ((!proxy && !expires) || req->unix_socket) {
		ax_answer(resp, 200, ax_sandbox_endpoint(e, a->v[0], a->v[1], &err), &err);
		return;
	}
	/* The Host the client reached the engine at, as the proxied endpoint's. */
	ax_answer(resp, 200,
		  ax_proxy_endpoint(e, a->v[0], a->v[1],
				    req->host && *req->host && !strpbrk(req->host, " \r\n/") ? req->host : "localhost",
				    expires, &err),
		  &err);
}
