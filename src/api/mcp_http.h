/* A Streamable HTTP MCP client for one endpoint (/mcp of the AIO runtime):
 * initialize (session id and protocol version kept), then one POST per
 * request with both Accept types; replies as JSON or as an SSE stream. */
#ifndef ALLOX_MCP_HTTP_H
#define ALLOX_MCP_HTTP_H

#include <jansson.h>

#include "lib/http.h"

typedef struct ax_mcp_http {
	ax_http *http;       /* borrowed; its base is the runtime's URL */
	const char *path;    /* "/mcp" */
	char *session;       /* Mcp-Session-Id, NULL for a stateless server */
	char *version;       /* negotiated protocol version */
	json_int_t next_id;
	json_t *server_info;
} ax_mcp_http;

/* Shake hands with the server at PATH on HTTP. */
int ax_mcp_http_open(ax_mcp_http *c, ax_http *http, const char *path, ax_error *err);
/* METHOD with PARAMS (stolen, may be NULL); *RESULT is the result object.
 * A JSON-RPC error is an error "MCP error <code>: <message>". */
int ax_mcp_http_request(ax_mcp_http *c, const char *method, json_t *params, json_t **result, ax_error *err);
/* Every page of tools/list: a new array. */
int ax_mcp_http_tools(ax_mcp_http *c, json_t **tools, ax_error *err);
/* End the session (DELETE; errors ignored) and free C's memory. */
void ax_mcp_http_close(ax_mcp_http *c);

/* The JSON-RPC message answering ID in an SSE BODY (LEN bytes), or NULL. Exposed for tests. */
json_t *ax_mcp_sse_find(const char *body, size_t len, json_int_t id);

/* The decoding halves of a request, apart from HTTP so that they can be
 * fuzzed (tests/fuzz/fuzz_mcp.c). BODY is LEN bytes, need not be
 * NUL-terminated. */
/* The answer to a POST to PATH expecting ID (0 for a notification): *REPLY
 * the JSON-RPC message answering ID (JSON or an SSE stream by CONTENT_TYPE),
 * NULL when there is none; -1 with ERR for an HTTP error status. */
int ax_mcp_decode_reply(const char *path, long status, const char *content_type, const char *body, size_t len,
			json_int_t id, json_t **reply, ax_error *err);
/* REPLY to METHOD (answered with STATUS): *RESULT its result object, or -1
 * with ERR for a missing reply, a JSON-RPC error or a missing result. */
int ax_mcp_decode_result(const char *path, const char *method, long status, const json_t *reply, json_t **result,
			 ax_error *err);

#endif
