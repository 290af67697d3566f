/* Top-level routing of the lifecycle API. */
#include "engine/engine.h"

#include <string.h>

#include "engine/runtime/runtime.h"
#include "lib/timeutil.h"

void ax_engine_handle(ax_engine *e, const ax_req *req, ax_resp *resp)
{
	atomic_store(&e->last_request_ms, ax_mono_ms());
	if (strcmp(req->path, "/health") == 0) {
		if (strcmp(req->method, "GET") != 0) {
			ax_resp_error(resp, 405, "GENERAL::METHOD_NOT_ALLOWED", "%s not allowed on /health", req->method);
			return;
		}
		resp->status = 200;
		resp->body = json_pack("{s:s}", "status", "healthy");
		return;
	}
	if (strcmp(req->path, "/sandboxes") == 0 || strncmp(req->path, "/sandboxes/", 11) == 0) {
		ax_sandboxes_route(e, req, resp);
		return;
	}
	if (strcmp(req->path, "/snapshots") == 0 || strncmp(req->path, "/snapshots/", 11) == 0) {
		ax_snapshots_route(e, req, resp);
		return;
	}
	ax_resp_error(resp, 404, "GENERAL::NOT_FOUND", "no route for %s %s", req->method, req->path);
}
