/* Every route of the lifecycle API the engine serves, and the dispatch:
 * 404 for a path no row has, 405 for a method no row of that path has. */
#include "lib/timeutil.h"
#include "engine/routes.h"

#include <string.h>

#include "engine/runtime/runtime.h"
#include "engine/wire_error.h"

static void health(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp)
{
	(void)e;
	(void)req;
	(void)a;
	resp->status = 200;
	resp->body = json_pack("{s:s}", "status", "healthy");
}

static const ax_route lifecycle_routes[] = {
	{ "GET", "/health", health },
	{ "POST", "/sandboxes", ax_route_sandbox_create },
	{ "GET", "/sandboxes", ax_route_sandbox_list },
	{ "GET", "/sandboxes/{id}", ax_route_sandbox_get },
	{ "DELETE", "/sandboxes/{id}", ax_route_sandbox_delete },
	{ "POST", "/sandboxes/{id}/pause", ax_route_sandbox_pause },
	{ "POST", "/sandboxes/{id}/resume", ax_route_sandbox_resume },
	{ "POST", "/sandboxes/{id}/renew-expiration", ax_route_sandbox_renew },
	{ "PATCH", "/sandboxes/{id}/metadata", ax_route_sandbox_metadata },
	{ "POST", "/sandboxes/{id}/snapshots", ax_route_snapshot_create },
	{ "GET", "/sandboxes/{id}/endpoints/{port}", ax_route_sandbox_endpoint },
	{ "GET", "/snapshots", ax_route_snapshot_list },
	{ "GET", "/snapshots/{id}", ax_route_snapshot_get },
	{ "DELETE", "/snapshots/{id}", ax_route_snapshot_delete },
	/* Not in the lifecycle spec: the local engine's named volumes. */
	{ "GET", "/volumes", ax_route_volume_list },
	{ "DELETE", "/volumes/{name}", ax_route_volume_delete },
	{ NULL, NULL, NULL },
};

void ax_engine_handle(ax_engine *e, const ax_req *req, ax_resp *resp)
{
	const ax_route *r;
	ax_route_args args;
	int status;

	atomic_store(&e->last_request_ms, ax_mono_ms());
	r = ax_route_find(lifecycle_routes, req->method, req->path, &args, &status);
	if (r)
		r->fn(e, req, &args, resp);
	else if (status == 405)
		ax_resp_error(resp, 405, "GENERAL::METHOD_NOT_ALLOWED", "%s not allowed on %s", req->method, req->path);
	else
		ax_resp_error(resp, 404, "GENERAL::NOT_FOUND", "no route for %s %s", req->method, req->path);
}

void ax_answer(ax_resp *resp, int status, json_t *v, const ax_error *err)
{
	if (!v) {
		ax_resp_fail(resp, err);
		return;
	}
	resp->status = status;
	resp->body = v;
}

void ax_answer_empty(ax_resp *resp, int status, int rc, const ax_error *err)
{
	if (rc < 0)
		ax_resp_fail(resp, err);
	else
		resp->status = status;
}
