/* MCP through the AIO runtime: the REST bridge (/v1/mcp/...) first; where
 * it answers 404 (an image without it), the /mcp Streamable HTTP hub, whose
 * tools are named "<server>_<tool>". Unknown servers and tools are errors
 * that list what exists. */
#ifndef ALLOX_MCP_CLIENT_H
#define ALLOX_MCP_CLIENT_H

#include <stdbool.h>
#include <jansson.h>

#include "lib/http.h"
#include "api/mcp_http.h"

typedef struct ax_mcp {
	ax_http *aio;          /* borrowed */
	bool fallback;         /* the bridge is missing: using /mcp */
	bool hub_open;
	ax_mcp_http hub;
	json_t *hub_tools;     /* the hub's tools (exposed names), once listed */
	json_t *details;       /* the bridge's per-server detail, when it gives one */
	char *hint;            /* the bridge's hint */
	long call_timeout_s;   /* > 0: sent to the bridge as ?timeout= (AIO's and ours) */
} ax_mcp;

void ax_mcp_init(ax_mcp *m, ax_http *aio);
void ax_mcp_free(ax_mcp *m);

/* Server names (a new array). */
int ax_mcp_servers(ax_mcp *m, json_t **names, ax_error *err);
/* SERVER's tools with their own (unprefixed) names (a new array). */
int ax_mcp_tools(ax_mcp *m, const char *server, json_t **tools, ax_error *err);
/* CallToolResult of TOOL on SERVER with ARGS (an object). */
int ax_mcp_call(ax_mcp *m, const char *server, const char *tool, const json_t *args, json_t **result, ax_error *err);

/* For the /mcp fallback: the server of an exposed TOOL (its _meta
 * "allox/server", else the part before the first '_'; "" when neither), and
 * its own name; malloc'd. Exposed for tests. */
char *ax_mcp_tool_server(const json_t *tool);
char *ax_mcp_tool_name(const json_t *tool, const char *server);

/* The decoding half of a bridge request (STATUS, BODY of LEN bytes, need
 * not be NUL-terminated): 0 with *DATA (and *DOC, the whole answer, when
 * DOC is non-NULL), 1 for a 404, -1 with ERR. Fuzzed by tests/fuzz/fuzz_mcp.c. */
int ax_mcp_decode_bridge(long status, const char *body, size_t len, json_t **data, json_t **doc, ax_error *err);

#endif
