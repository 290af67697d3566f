/* The /sandboxes routes: request in, domain call (sandbox.h), answer out. */
#include "engine/routes.h"

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

void ax_route_sandbox_endpoint(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp)
{
	ax_error err;

	(void)req;
	ax_answer(resp, 200, ax_sandbox_endpoint(e, a->v[0], a->v[1], &err), &err);
}
