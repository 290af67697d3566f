/* JSON-RPC 2.0 as MCP uses it: building and classifying messages, one
 * message per line on stdio, and protocol version negotiation. Pure
 * functions (no I/O), shared by the stdio client and the /mcp endpoint. */
#ifndef ALLOX_AGENT_MCP_JSONRPC_H
#define ALLOX_AGENT_MCP_JSONRPC_H

#include <jansson.h>
#include <stddef.h>

#define MCP_PARSE_ERROR (-32700)
#define MCP_INVALID_REQUEST (-32600)
#define MCP_METHOD_NOT_FOUND (-32601)
#define MCP_INVALID_PARAMS (-32602)
#define MCP_INTERNAL_ERROR (-32603)

/* The version we propose; the ones we accept in a reply or a request. */
#define MCP_LATEST_VERSION "2025-11-25"

enum mcp_kind {
	MCP_INVALID,        /* not a JSON-RPC 2.0 object: ignore it */
	MCP_REQUEST,        /* method and a non-null id: must be answered */
	MCP_NOTIFICATION,   /* method, no id: never answered */
	MCP_RESPONSE,       /* result or error, with an id */
};

enum mcp_kind mcp_classify(const json_t *msg);

/* New messages; PARAMS and RESULT are stolen (NULL: none / {}). */
json_t *mcp_request(json_int_t id, const char *method, json_t *params);
json_t *mcp_notification(const char *method, json_t *params);
json_t *mcp_result(const json_t *id, json_t *result);
/* ID NULL gives "id": null (a request we could not read). */
json_t *mcp_error(const json_t *id, int code, const char *message);

/* Is MSG the response to our request number ID? Ids keep their type: the
 * string "1" is not the integer 1. */
int mcp_is_response_to(const json_t *msg, json_int_t id);

/* MSG compact, on one line, with the terminating '\n'; malloc'd. */
char *mcp_encode_line(const json_t *msg, size_t *len);

/* A growable buffer that cuts a byte stream into lines. */
struct mcp_lines {
	char *buf;
	size_t len, cap;
	size_t max;         /* longest line kept (0: 64 MiB); longer ones are dropped */
	int dropping;       /* inside a line that was too long */
};

/* Append N bytes. -1 on ENOMEM. */
int mcp_lines_feed(struct mcp_lines *l, const char *data, size_t n);
/* The next complete line without its "\n" (and a "\r" before it), malloc'd;
 * NULL when there is none yet. */
char *mcp_lines_next(struct mcp_lines *l);
void mcp_lines_free(struct mcp_lines *l);

/* The version to answer an initialize that asked for REQUESTED: the same if
 * we know it, else our latest. */
const char *mcp_pick_version(const char *requested);
/* Is V a version we can speak? */
int mcp_version_known(const char *v);

#endif
