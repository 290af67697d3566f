/* The /snapshots routes and POST /sandboxes/{id}/snapshots. */
#include "engine/routes.h"

#include <stdio.h>
#include <string.h>

#include "engine/request.h"
#include "engine/sandbox.h"

/* The size travels in a header: the spec's Snapshot allows no extra field. */
static void size_header(ax_resp *resp, long long size)
{
	if (size >= 0)
		snprintf(resp->size_header, sizeof resp->size_header, "%lld", size);
}

void ax_route_snapshot_create(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp)
{
	json_t *body = ax_parse_body(req, resp, false), *v;
	long long size = -1;
	ax_error err;

	if (!body)
		return;
	v = ax_snapshot_create(e, a->v[0], body, &size, &err);
	json_decref(body);
	ax_answer(resp, 202, v, &err);
	if (!v)
		return;
	size_header(resp, size);
	/* The spec types Location as an absolute URI. */
	snprintf(resp->location, sizeof resp->location, "http://%.128s/v1/snapshots/%s",
		 req->host && *req->host && !strpbrk(req->host, " \r\n/") ? req->host : "localhost",
		 json_string_value(json_object_get(v, "id")));
}

void ax_route_snapshot_list(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp)
{
	ax_page page;
	ax_error err;

	(void)a;
	if (ax_page_param(req, &page, resp) == 0)
		ax_answer(resp, 200,
			  ax_snapshot_list(e, json_object_get(req->query, "state"), ax_query(req, "sandboxId"), &page, &err),
			  &err);
}

void ax_route_snapshot_get(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp)
{
	long long size = -1;
	ax_error err;

	(void)req;
	ax_answer(resp, 200, ax_snapshot_get(e, a->v[0], &size, &err), &err);
	size_header(resp, size);
}

void ax_route_snapshot_delete(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp)
{
	ax_error err;

	(void)req;
	ax_answer_empty(resp, 204, ax_snapshot_delete(e, a->v[0], &err), &err);
}
