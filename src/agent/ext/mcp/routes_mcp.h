/* MCP routes: AIO's REST bridge (/v1/mcp/...) in mcp_routes.c and the
 * Streamable HTTP endpoint /mcp in mcp_endpoint.c. Rows for routes.c. */
#ifndef ALLOX_AGENT_ROUTES_MCP_H
#define ALLOX_AGENT_ROUTES_MCP_H

#include "agent/core/route.h"

/* Tool arguments and JSON-RPC messages travel inline (file contents, code). */
#define AG_MCP_BODY_MAX ((size_t)16 << 20)

enum MHD_Result ag_mcp_servers_route(struct ag_req *req);
enum MHD_Result ag_mcp_tools_route(struct ag_req *req);
enum MHD_Result ag_mcp_call_route(struct ag_req *req);
enum MHD_Result ag_mcp_post_route(struct ag_req *req);
enum MHD_Result ag_mcp_delete_route(struct ag_req *req);

/* The rows, with H(handler) as each handler: the module serves them with
 * their handlers, the agent with ag_ext_route (routes_ext.h). */
#define AG_MCP_ROUTES_VIA(h) \
	{ "GET", "/v1/mcp/servers", AG_EXACT, h(ag_mcp_servers_route), AG_BODY_NONE, 0, NULL }, \
	{ "GET", "/v1/mcp/", AG_PREFIX, h(ag_mcp_tools_route), AG_BODY_NONE, 0, NULL }, \
	{ "POST", "/v1/mcp/", AG_PREFIX, h(ag_mcp_call_route), AG_BODY_BUFFER, AG_MCP_BODY_MAX, NULL }, \
	{ "POST", "/mcp", AG_EXACT, h(ag_mcp_post_route), AG_BODY_BUFFER, AG_MCP_BODY_MAX, NULL }, \
	{ "DELETE", "/mcp", AG_EXACT, h(ag_mcp_delete_route), AG_BODY_NONE, 0, NULL },

#define AG_MCP_ROUTES AG_MCP_ROUTES_VIA(AG_ROUTE_SELF)

#endif
