/* Shared pieces of the built-in servers. */
#include "agent/ext/mcp/mcp_builtin.h"

#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "agent/aio/aio_common.h"
#include "agent/ext/mcp/mcp_jsonrpc.h"

json_t *mcp_tool(const char *name, const char *title, const char *description, json_t *input_schema, bool read_only)
{
	return json_pack("{s:s, s:s, s:s, s:o, s:{s:s, s:b}}", "name", name, "title", title, "description", description,
			 "inputSchema", input_schema, "annotations", "title", title, "readOnlyHint", read_only);
}

json_t *mcp_text_block(const char *s, size_t len)
{
	json_t *text = aio_json_bytes(s, len);

	return text ? json_pack("{s:s, s:o}", "type", "text", "text", text) : NULL;
}

json_t *mcp_error_result(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return json_pack("{s:[{s:s, s:o}], s:b}", "content", "type", "text", "text", ag_json_text(msg), "isError", 1);
}

json_t *mcp_image_block(const unsigned char *data, size_t len, const char *mime)
{
	size_t cap = 4 * ((len + 2) / 3) + 1;
	unsigned char *b64 = malloc(cap);
	json_t *block;

	if (!b64)
		return NULL;
	EVP_EncodeBlock(b64, data, (int)len);
	block = json_pack("{s:s, s:s, s:s}", "type", "image", "data", (char *)b64, "mimeType", mime);
	free(b64);
	return block;
}

int mcp_unknown_tool(struct ag_error *err, const char *server, const char *tool)
{
	return ag_fail_code(err, 404, MCP_INVALID_PARAMS, "Tool '%s' not found on MCP server '%s'", tool, server);
}
