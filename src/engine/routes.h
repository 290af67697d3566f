/* The lifecycle API's route handlers (sandbox_routes.c, snapshot_routes.c),
 * listed in the table of routes.c. Each reads the request, calls one domain
 * operation and answers its result or its error. */
#ifndef ALLOX_ENGINE_ROUTES_H
#define ALLOX_ENGINE_ROUTES_H

#include "engine/route.h"

/* Answer STATUS with V (stolen), or, V NULL, ERR. */
void ax_answer(ax_resp *resp, int status, json_t *v, const ax_error *err);
/* Answer STATUS with no body when RC is 0, else ERR. */
void ax_answer_empty(ax_resp *resp, int status, int rc, const ax_error *err);

void ax_route_sandbox_create(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp);
void ax_route_sandbox_list(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp);
void ax_route_sandbox_get(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp);
void ax_route_sandbox_delete(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp);
void ax_route_sandbox_pause(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp);
void ax_route_sandbox_resume(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp);
void ax_route_sandbox_renew(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp);
void ax_route_sandbox_metadata(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp);
void ax_route_sandbox_endpoint(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp);
void ax_route_volume_list(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp);
void ax_route_volume_delete(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp);
void ax_route_snapshot_create(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp);
void ax_route_snapshot_list(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp);
void ax_route_snapshot_get(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp);
void ax_route_snapshot_delete(ax_engine *e, const ax_req *req, const ax_route_args *a, ax_resp *resp);

#endif
