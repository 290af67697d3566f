/* One configured MCP server: a child process spoken to in JSON-RPC over its
 * stdin and stdout (one message per line), its stderr appended to a log file.
 * Started on first use with the initialize handshake; when it has died, the
 * next request starts it again. Requests on one server are serialised. */
#ifndef ALLOX_AGENT_MCP_STDIO_H
#define ALLOX_AGENT_MCP_STDIO_H

#include <jansson.h>

#include "agent/ext/mcp/mcp.h"

struct ag_reaper;
struct mcp_stdio;

/* COMMAND: array of strings; ENV: object of strings or NULL; CWD may be NULL
 * ($HOME). The arguments are copied. NULL on ENOMEM. */
struct mcp_stdio *mcp_stdio_new(const char *name, const json_t *command, const json_t *env, const char *cwd,
				const char *log_path, struct ag_reaper *reaper);
void mcp_stdio_free(struct mcp_stdio *s);   /* closes stdin, then SIGTERM, then SIGKILL */

/* Send METHOD with PARAMS (stolen; NULL: none) and wait up to TIMEOUT_MS for
 * the reply; *RESULT is its result. Requests the server sends meanwhile are
 * answered (ping with {}, anything else with -32601) so it never waits on us. */
int mcp_stdio_request(struct mcp_stdio *s, const char *method, json_t *params, int timeout_ms, json_t **result,
		      struct ag_error *err);

/* The capabilities we declare in initialize (default {}: a tool-calling
 * client). Test hook: declaring sampling, elicitation or roots makes
 * servers send those requests, which are still refused. Takes effect at
 * the next start. */
void mcp_stdio_set_capabilities(struct mcp_stdio *s, const json_t *caps);

/* {name, type, command, cwd?, running, pid, restarts, log, protocol_version?, server_info?} */
json_t *mcp_stdio_status(struct mcp_stdio *s);

#endif
