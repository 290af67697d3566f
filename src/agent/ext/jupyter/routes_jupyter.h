/* Jupyter routes of the AIO runtime API (specs/aio-sandbox/openapi.json):
 * rows for routes.c; the handlers are in jupyter_routes.c. */
#ifndef ALLOX_AGENT_ROUTES_JUPYTER_H
#define ALLOX_AGENT_ROUTES_JUPYTER_H

#include "agent/core/route.h"

/* Code travels inline; cells with embedded data can be large. */
#define AG_JUPYTER_CODE_MAX ((size_t)16 << 20)

enum MHD_Result ag_jupyter_execute_route(struct ag_req *req);
enum MHD_Result ag_jupyter_info_route(struct ag_req *req);
enum MHD_Result ag_jupyter_sessions_route(struct ag_req *req);
enum MHD_Result ag_jupyter_create_route(struct ag_req *req);
enum MHD_Result ag_jupyter_delete_route(struct ag_req *req);
enum MHD_Result ag_jupyter_delete_all_route(struct ag_req *req);

/* The rows, with H(handler) as each handler: the module serves them with
 * their handlers, the agent with ag_ext_route (routes_ext.h). */
#define AG_JUPYTER_ROUTES_VIA(h) \
	{ "POST", "/v1/jupyter/execute", AG_EXACT, h(ag_jupyter_execute_route), AG_BODY_BUFFER, AG_JUPYTER_CODE_MAX, NULL }, \
	{ "GET", "/v1/jupyter/info", AG_EXACT, h(ag_jupyter_info_route), AG_BODY_NONE, 0, NULL }, \
	{ "GET", "/v1/jupyter/sessions", AG_EXACT, h(ag_jupyter_sessions_route), AG_BODY_NONE, 0, NULL }, \
	{ "DELETE", "/v1/jupyter/sessions", AG_EXACT, h(ag_jupyter_delete_all_route), AG_BODY_NONE, 0, NULL }, \
	{ "POST", "/v1/jupyter/sessions/create", AG_EXACT, h(ag_jupyter_create_route), AG_BODY_BUFFER, 0, NULL }, \
	{ "DELETE", "/v1/jupyter/sessions/", AG_PREFIX, h(ag_jupyter_delete_route), AG_BODY_NONE, 0, NULL },

#define AG_JUPYTER_ROUTES AG_JUPYTER_ROUTES_VIA(AG_ROUTE_SELF)

#endif
