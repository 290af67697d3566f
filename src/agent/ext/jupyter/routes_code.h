/* The execd API's code-interpreting routes (specs/opensandbox/execd-api.yaml,
 * tag CodeInterpreting): contexts are Jupyter sessions (jupyter.h), served
 * by the extension module; the handlers are in code_routes.c. */
#ifndef ALLOX_AGENT_ROUTES_CODE_H
#define ALLOX_AGENT_ROUTES_CODE_H

#include "agent/core/route.h"
#include "agent/ext/jupyter/routes_jupyter.h"

enum MHD_Result ag_code_context_create_route(struct ag_req *req);
enum MHD_Result ag_code_contexts_route(struct ag_req *req);
enum MHD_Result ag_code_contexts_delete_route(struct ag_req *req);
enum MHD_Result ag_code_context_get_route(struct ag_req *req);
enum MHD_Result ag_code_context_delete_route(struct ag_req *req);
enum MHD_Result ag_code_run_route(struct ag_req *req);
enum MHD_Result ag_code_interrupt_route(struct ag_req *req);

/* The rows, with H(handler) as each handler and RUN as POST /code's: the
 * agent answers a run without a language itself, as a shell command
 * (execd_code.h), and hands the others to the module. Exact
 * "/code/contexts" before the "/code/contexts/" prefix. */
#define AG_CODE_ROUTES_VIA(h, run) \
	{ "POST", "/code/context", AG_EXACT, h(ag_code_context_create_route), AG_BODY_BUFFER, 0, NULL }, \
	{ "GET", "/code/contexts", AG_EXACT, h(ag_code_contexts_route), AG_BODY_NONE, 0, NULL }, \
	{ "DELETE", "/code/contexts", AG_EXACT, h(ag_code_contexts_delete_route), AG_BODY_NONE, 0, NULL }, \
	{ "GET", "/code/contexts/", AG_PREFIX, h(ag_code_context_get_route), AG_BODY_NONE, 0, NULL }, \
	{ "DELETE", "/code/contexts/", AG_PREFIX, h(ag_code_context_delete_route), AG_BODY_NONE, 0, NULL }, \
	{ "POST", "/code", AG_EXACT, run, AG_BODY_BUFFER, AG_JUPYTER_CODE_MAX, NULL }, \
	{ "DELETE", "/code", AG_EXACT, h(ag_code_interrupt_route), AG_BODY_NONE, 0, NULL },

#define AG_CODE_ROUTES AG_CODE_ROUTES_VIA(AG_ROUTE_SELF, ag_code_run_route)

#endif
