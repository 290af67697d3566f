/* The client's Streamable HTTP code (src/api/mcp_http.c) against any MCP
 * endpoint, for tests/cli/mcp.sh: initialize, tools/list, one tools/call,
 * DELETE; prints {session, version, server, tools, result} as JSON.
 *
 *   mcp_probe BASE_URL PATH TOOL ARGUMENTS_JSON
 *
 * Exit status 0, or 1 with the error on stderr. */
#include <stdio.h>
#include <stdlib.h>

#include "api/mcp_http.h"

int main(int argc, char **argv)
{
	json_t *tools = NULL, *result = NULL, *names, *t, *out;
	ax_mcp_http c;
	ax_error err;
	ax_http h;
	size_t i;

	if (argc != 5) {
		fputs("usage: mcp_probe BASE_URL PATH TOOL ARGUMENTS_JSON\n", stderr);
		return 2;
	}
	if (ax_http_init(&h, argv[1], NULL, 60, &err) < 0 || ax_mcp_http_open(&c, &h, argv[2], &err) < 0) {
		fprintf(stderr, "mcp_probe: %s\n", err.message);
		return 1;
	}
	if (ax_mcp_http_tools(&c, &tools, &err) < 0 ||
	    ax_mcp_http_request(&c, "tools/call",
				json_pack("{s:s, s:o}", "name", argv[3], "arguments", json_loads(argv[4], 0, NULL)), &result,
				&err) < 0) {
		fprintf(stderr, "mcp_probe: %s\n", err.message);
		ax_mcp_http_close(&c);
		return 1;
	}
	names = json_array();
	json_array_foreach(tools, i, t)
		json_array_append(names, json_object_get(t, "name"));
	out = json_pack("{s:s?, s:s, s:O?, s:o, s:O}", "session", c.session, "version", c.version, "server",
			c.server_info, "tools", names, "result", result);
	ax_mcp_http_close(&c);
	ax_http_free(&h);
	{
		char *text = json_dumps(out, JSON_COMPACT);

		puts(text ? text : "null");
		free(text);
	}
	json_decref(out);
	json_decref(tools);
	json_decref(result);
	return 0;
}
