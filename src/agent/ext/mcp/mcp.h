/* src/agent/ext/mcp/mcp.h — the agent's MCP hub: built-in servers
 * (sandbox, browser) implemented in-process and configured stdio servers
 * started inside the sandbox on first use. The REST bridge (/v1/mcp/...) and
 * the Streamable HTTP endpoint (/mcp) are its two front doors. */
#ifndef ALLOX_AGENT_MCP_H
#define ALLOX_AGENT_MCP_H

#include <jansson.h>
#include <stdbool.h>

#include "agent/core/ag_error.h"

struct ag_ctx;
struct ag_browser;
struct ag_mcp;

/* Failures fill a struct ag_error: the status for the bridge (404 unknown
 * server/tool, 400 bad input, 500, 502 server died, 504 timeout) and the
 * JSON-RPC code for /mcp (ag_fail_code). */

/* SERVERS_JSON: the value of ALLOX_AGENT_MCP_SERVERS (may be NULL), an
 * object {name: {command: [..], env?: {..}, cwd?: ".."}}; entries that are
 * not usable are logged and skipped. CTX is the agent's context (its reaper,
 * jupyter); BROWSER may be NULL. NULL on ENOMEM. */
struct ag_mcp *ag_mcp_new(const struct ag_ctx *ctx, struct ag_browser *browser, const char *servers_json);
void ag_mcp_free(struct ag_mcp *m);     /* stops every server process */

/* Test hook: with the bridge off, /v1/mcp/... answers 404 like a missing route
 * (an AIO image without the bridge), so clients fall back to /mcp. */
void ag_mcp_set_bridge(struct ag_mcp *m, bool on);
bool ag_mcp_bridge(const struct ag_mcp *m);

/* Test hook: the client capabilities (a JSON object as text) the hub
 * declares to configured servers, e.g. {"sampling":{}} so that a server
 * sends sampling requests, which are refused all the same. */
void ag_mcp_set_test_capabilities(struct ag_mcp *m, const char *caps_json);

/* Server names, built-ins first. */
json_t *ag_mcp_server_names(struct ag_mcp *m);
/* [{name, type: builtin|stdio, command?, running, pid?, restarts, log?}] */
json_t *ag_mcp_server_details(struct ag_mcp *m);
/* Where configured servers' stderr goes: "<dir>/<name>.log". */
const char *ag_mcp_log_dir(const struct ag_mcp *m);

/* ListToolsResult {tools: [...]} of SERVER (every page). */
int ag_mcp_list_tools(struct ag_mcp *m, const char *server, json_t **result, struct ag_error *err);
/* CallToolResult of TOOL on SERVER with ARGS (an object, or NULL), waiting
 * up to TIMEOUT_S for a configured server (<= 0: 300 s). */
int ag_mcp_call_tool(struct ag_mcp *m, const char *server, const char *tool, const json_t *args, double timeout_s,
		     json_t **result, struct ag_error *err);
/* Every server's tools under their exposed names for /mcp: the name itself
 * when it already starts with "<server>_", else "<server>_<name>"; each tool's
 * _meta gains "allox/server" and "allox/tool". Servers that fail are skipped. */
json_t *ag_mcp_all_tools(struct ag_mcp *m);
/* Resolve an exposed name to its server and tool (never by splitting:
 * through the servers' tool lists). 0, or -1 with ERR (-32602). The strings
 * are malloc'd. */
int ag_mcp_resolve(struct ag_mcp *m, const char *exposed, char **server, char **tool, struct ag_error *err);

/* The Streamable HTTP sessions of /mcp (mcp_session.c). */
struct mcp_sessions;
struct mcp_sessions *ag_mcp_sessions(struct ag_mcp *m);

#endif
