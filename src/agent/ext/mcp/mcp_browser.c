/* The built-in `browser` MCP server on the browser module (browser.h):
 * browser_navigate, browser_screenshot (image content), browser_evaluate and
 * browser_get_text, shaped after @agent-infra/mcp-server-browser. */
#include "agent/ext/mcp/mcp_builtin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/ext/browser/browser.h"

static json_t *object_schema(json_t *props, const char *required)
{
	json_t *s = json_pack("{s:s, s:o}", "type", "object", "properties", props);

	if (required)
		json_object_set_new(s, "required", json_pack("[s]", required));
	return s;
}

static json_t *browser_tools(void)
{
	return json_pack(
		"[o, o, o, o]",
		mcp_tool("browser_navigate", "Navigate", "Load a URL in the sandbox's browser and wait for the page.",
			 object_schema(json_pack("{s:{s:s, s:s}}", "url", "type", "string", "description", "the URL to open"),
				       "url"),
			 false),
		mcp_tool("browser_screenshot", "Screenshot", "Take a PNG screenshot of the current page.",
			 object_schema(json_pack("{s:{s:s, s:s}}", "name", "type", "string", "description",
						 "a name for the screenshot (informational)"),
				       NULL),
			 true),
		mcp_tool("browser_evaluate", "Evaluate", "Evaluate JavaScript in the current page and return its value as JSON.",
			 object_schema(json_pack("{s:{s:s, s:s}}", "script", "type", "string", "description",
						 "a JavaScript expression (promises are awaited)"),
				       "script"),
			 false),
		mcp_tool("browser_get_text", "Get Text", "The text of the current page (document.body.innerText).",
			 object_schema(json_object(), NULL), true));
}

static json_t *failed(const struct ag_error *e)
{
	return mcp_error_result("%s", e->message[0] ? e->message : "browser error");
}

static json_t *navigate(struct ag_browser *b, const json_t *args)
{
	const char *url = json_string_value(json_object_get(args, "url"));
	struct ag_error e = { 0 };
	char *title = NULL;
	json_t *r;

	if (!url)
		return mcp_error_result("url is required (a string)");
	if (ag_browser_navigate(b, url, 0, &title, &e) < 0)
		return failed(&e);
	r = json_pack("{s:[{s:s, s:s+++}], s:{s:s, s:s}, s:b}", "content", "type", "text", "text", "Navigated to ", url,
		      "\nTitle: ", title ? title : "", "structuredContent", "url", url, "title", title ? title : "", "isError",
		      0);
	free(title);
	return r;
}

static json_t *screenshot(struct ag_browser *b)
{
	struct ag_error e = { 0 };
	unsigned char *png = NULL;
	size_t len = 0;
	int w = 0, h = 0;
	char text[96];
	json_t *r;

	if (ag_browser_screenshot(b, "png", -1, &png, &len, &w, &h, &e) < 0)
		return failed(&e);
	snprintf(text, sizeof text, "Screenshot taken (%dx%d, %zu bytes)", w, h, len);
	r = json_pack("{s:[{s:s, s:s}, o], s:b}", "content", "type", "text", "text", text,
		      mcp_image_block(png, len, "image/png"), "isError", 0);
	free(png);
	return r;
}

static json_t *evaluate(struct ag_browser *b, const json_t *args)
{
	const char *script = json_string_value(json_object_get(args, "script"));
	struct ag_error e = { 0 };
	json_t *value = NULL, *r;
	char *text;

	if (!script)
		return mcp_error_result("script is required (a string)");
	if (ag_browser_evaluate(b, script, &value, &e) < 0)
		return failed(&e);
	text = json_dumps(value, JSON_ENCODE_ANY | JSON_COMPACT);
	r = json_pack("{s:[{s:s, s:s}], s:b}", "content", "type", "text", "text", text ? text : "null", "isError", 0);
	free(text);
	json_decref(value);
	return r;
}

static json_t *get_text(struct ag_browser *b)
{
	struct ag_error e = { 0 };
	char *text = NULL;
	json_t *r;

	if (ag_browser_text(b, &text, &e) < 0)
		return failed(&e);
	r = json_pack("{s:[o], s:b}", "content", mcp_text_block(text, strlen(text)), "isError", 0);
	free(text);
	return r;
}

static int browser_call(const struct mcp_builtin_env *env, const char *tool, const json_t *args, json_t **result,
			struct ag_error *err)
{
	if (strcmp(tool, "browser_navigate") != 0 && strcmp(tool, "browser_screenshot") != 0 &&
	    strcmp(tool, "browser_evaluate") != 0 && strcmp(tool, "browser_get_text") != 0)
		return mcp_unknown_tool(err, "browser", tool);
	if (!env->browser)
		*result = mcp_error_result("the browser is not available in this agent");
	else if (strcmp(tool, "browser_navigate") == 0)
		*result = navigate(env->browser, args);
	else if (strcmp(tool, "browser_screenshot") == 0)
		*result = screenshot(env->browser);
	else if (strcmp(tool, "browser_evaluate") == 0)
		*result = evaluate(env->browser, args);
	else
		*result = get_text(env->browser);
	if (!*result)
		return ag_fail_code(err, 500, -32603, "out of memory");
	return 0;
}

const struct mcp_builtin mcp_builtin_browser = { "browser", browser_tools, browser_call };
