/* Built-in MCP servers: tools implemented inside the agent, named and shaped
 * after the AIO hub's (sandbox_*, browser_*). */
#ifndef ALLOX_AGENT_MCP_BUILTIN_H
#define ALLOX_AGENT_MCP_BUILTIN_H

#include <jansson.h>
#include <stdbool.h>

#include "agent/ext/mcp/mcp.h"

struct ag_ctx;
struct ag_browser;

struct mcp_builtin_env {
	const struct ag_ctx *ctx;
	struct ag_browser *browser;
};

struct mcp_builtin {
	const char *name;
	/* The Tool objects, a new array. */
	json_t *(*tools)(void);
	/* A CallToolResult in *RESULT (tool failures are isError results); -1
	 * with ERR only for an unknown tool (404, -32602). */
	int (*call)(const struct mcp_builtin_env *env, const char *tool, const json_t *args, json_t **result,
		    struct ag_error *err);
};

extern const struct mcp_builtin mcp_builtin_sandbox;
extern const struct mcp_builtin mcp_builtin_browser;

/* Helpers for building results and tools (mcp_builtin.c). */
json_t *mcp_tool(const char *name, const char *title, const char *description, json_t *input_schema, bool read_only);
/* {content: [{type: text, text}], isError} */
json_t *mcp_error_result(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A text content block holding LEN bytes of S (invalid UTF-8 replaced). */
json_t *mcp_text_block(const char *s, size_t len);
/* An image content block with DATA base64-encoded. */
json_t *mcp_image_block(const unsigned char *data, size_t len, const char *mime);
int mcp_unknown_tool(struct ag_error *err, const char *server, const char *tool);

#endif
