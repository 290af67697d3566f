/* The rows the extension module serves (Jupyter, browser, MCP), as the
 * agent's table holds them: same methods, paths and body limits, so the
 * server refuses and buffers as before, but every handler is ag_ext_route,
 * which loads the module and hands the request on; the /code rows' are
 * the agent's (execd_code.h), which answer bash contexts and shell commands
 * without the module. */
#ifndef ALLOX_AGENT_ROUTES_EXT_H
#define ALLOX_AGENT_ROUTES_EXT_H

#include "agent/core/ext_loader.h"
#include "agent/execd/execd_code.h"
#include "agent/ext/browser/routes_browser.h"
#include "agent/ext/jupyter/routes_code.h"
#include "agent/ext/jupyter/routes_jupyter.h"
#include "agent/ext/mcp/routes_mcp.h"

#define AG_EXT_HANDLER(handler) ag_ext_route

#define AG_EXT_ROUTES \
	AG_JUPYTER_ROUTES_VIA(AG_EXT_HANDLER) \
	AG_CODE_ROUTES_VIA(ag_execd_code_context_create, ag_execd_code_contexts, ag_execd_code_contexts_delete, \
			   ag_execd_code_context_get, ag_execd_code_context_delete, ag_execd_code_run, \
			   ag_execd_code_interrupt) \
	AG_BROWSER_ROUTES_VIA(AG_EXT_HANDLER) \
	AG_MCP_ROUTES_VIA(AG_EXT_HANDLER)

#endif
