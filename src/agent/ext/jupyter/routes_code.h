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

/* The rows, with CREATE... as their handlers: the module's own here, the
 * agent's (execd_code.h) in its table, which answer what needs no Jupyter
 * and hand the rest to the module. Exact "/code/contexts" before the
 * "/code/contexts/" prefix. */
#define AG_CODE_ROUTES_VIA(create, list, delete_language, get, delete, run, interrupt) \
	{ "POST", "/code/context", AG_EXACT, create, AG_BODY_BUFFER, 0, NULL }, \
	{ "GET", "/code/contexts", AG_EXACT, list, AG_BODY_NONE, 0, NULL }, \
	{ "DELETE", "/code/contexts", AG_EXACT, delete_language, AG_BODY_NONE, 0, NULL }, \
	{ "GET", "/code/contexts/", AG_PREFIX, get, AG_BODY_NONE, 0, NULL }, \
	{ "DELETE", "/code/contexts/", AG_PREFIX, delete, AG_BODY_NONE, 0, NULL }, \
	{ "POST", "/code", AG_EXACT, run, AG_BODY_BUFFER, AG_JUPYTER_CODE_MAX, NULL }, \
	{ "DELETE", "/code", AG_EXACT, interrupt, AG_BODY_NONE, 0, NULL },

#define AG_CODE_ROUTES \
	AG_CODE_ROUTES_VIA(ag_code_context_create_route, ag_code_contexts_route, ag_code_contexts_delete_route, \
			   ag_code_context_get_route, ag_code_context_delete_route, ag_code_run_route, \
			   ag_code_interrupt_route)

#endif
