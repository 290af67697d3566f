/* aio mcp servers | tools | call: MCP servers in the sandbox, through the
 * AIO runtime's REST bridge or its /mcp hub (src/api/mcp.c). */
#include "cmd/command.h"

#include <stdlib.h>
#include <string.h>

#include "lib/duration.h"
#include "api/mcp_client.h"
#include "lib/output/output_mcp.h"
#include "cmd/target.h"
#include "cmd/verbs.h"
#include "cmd/common.h"

/* Beyond the tool's time: starting its server. */
#define CALL_MARGIN_S 60
#define DESCRIPTION_MAX 120

/* An MCP client on the target's AIO runtime. */
struct mcp_conn {
	const char *id;
	ax_mcp mcp;
	bool open;
};

/* Requests may take TIMEOUT_S each. */
static void conn_open(ax_ctx *ctx, long timeout_s, struct mcp_conn *c)
{
	memset(c, 0, sizeof *c);
	c->id = ctx->target->sandbox_id;
	ctx->target->runtime.timeout_s = timeout_s;
	ax_mcp_init(&c->mcp, &ctx->target->runtime);
	c->open = true;
}

static void conn_close(struct mcp_conn *c)
{
	if (c->open)
		ax_mcp_free(&c->mcp);
}

static long request_timeout(const ax_ctx *ctx)
{
	return (long)ax_config_int(ctx->config, "request_timeout");
}

/* The bridge's detail for NAME, if it gave one. */
static const json_t *detail_of(const json_t *details, const char *name)
{
	const json_t *d;
	size_t i;

	json_array_foreach(details, i, d)
		if (strcmp(json_string_value(json_object_get(d, "name")) ?: "", name) == 0)
			return d;
	return NULL;
}

static int cmd_aio_mcp_servers(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	static const char *const columns[] = { "server", "type", "running", "log", NULL };
	static char title[128];
	struct mcp_conn c;
	json_t *names = NULL, *v;
	size_t i;
	int rc = -1;

	conn_open(ctx, request_timeout(ctx), &c);
	if (ax_mcp_servers(&c.mcp, &names, err) < 0)
		goto out;
	/* Programs get the document; people one row per server. */
	res->kind = AX_RESULT_DATA;
	res->data = json_pack("{s:s, s:O}", "sandbox_id", c.id, "servers", names);
	if (c.mcp.details)
		json_object_set(res->data, "details", c.mcp.details);
	if (c.mcp.fallback)
		json_object_set_new(res->data, "via", json_string("/mcp"));
	res->human = json_array();
	json_array_foreach(names, i, v) {
		const json_t *d = detail_of(c.mcp.details, json_string_value(v));
		json_t *row = json_pack("{s:O}", "server", v);

		if (d) {
			json_t *log = json_object_get(d, "log");

			json_object_set(row, "type", json_object_get(d, "type"));
			json_object_set(row, "running", json_object_get(d, "running"));
			json_object_set_new(row, "log", log ? json_incref(log) : json_string("-"));
		}
		json_array_append_new(res->human, row);
	}
	snprintf(title, sizeof title, "MCP Servers (%s)", c.id);
	res->view.title = title;
	res->view.columns = c.mcp.details ? columns : NULL;
	rc = 0;
out:
	json_decref(names);
	conn_close(&c);
	return rc;
}

/* One line, at most DESCRIPTION_MAX characters, "-" when empty. */
static json_t *short_description(const json_t *tool)
{
	const char *d = json_string_value(json_object_get(tool, "description"));
	char buf[DESCRIPTION_MAX * 4 + 1];
	size_t i, n = 0, chars = 0;

	if (!d || !*d)
		return json_string("-");
	for (i = 0; d[i] && n + 4 < sizeof buf; i++) {
		unsigned char ch = (unsigned char)d[i];

		/* Count characters, not bytes: never cut inside a UTF-8 sequence. */
		if ((ch & 0xC0) != 0x80 && chars++ == DESCRIPTION_MAX)
			break;
		buf[n++] = ch == '\n' || ch == '\r' || ch == '\t' ? ' ' : (char)ch;
	}
	buf[n] = '\0';
	return json_string(buf) ?: json_string("-");
}

static int cmd_aio_mcp_tools(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	static const char *const columns[] = { "name", "description", NULL };
	static char title[192];
	const char *server = ax_arg_string(args, "SERVER");
	struct mcp_conn c;
	json_t *tools = NULL, *t;
	size_t i;
	int rc = -1;

	conn_open(ctx, request_timeout(ctx) + CALL_MARGIN_S, &c);
	if (ax_mcp_tools(&c.mcp, server, &tools, err) < 0)
		goto out;
	res->kind = AX_RESULT_DATA;
	res->data = json_pack("{s:s, s:s, s:O}", "sandbox_id", c.id, "server", server, "tools", tools);
	res->human = json_array();
	json_array_foreach(tools, i, t)
		json_array_append_new(res->human, json_pack("{s:O, s:o}", "name", json_object_get(t, "name") ?: json_null(),
							    "description", short_description(t)));
	snprintf(title, sizeof title, "MCP Tools: %.150s", server);
	res->view.title = title;
	res->view.columns = columns;
	rc = 0;
out:
	json_decref(tools);
	conn_close(&c);
	return rc;
}

/* --args (a JSON object: its kind was checked) overlaid with each --arg
 * K=V, V as JSON when it parses, else the string. */
static json_t *call_arguments(const ax_args *args, ax_error *err)
{
	const char *text = ax_arg_string(args, "args");
	const json_t *pairs = ax_arg_json(args, "arg"), *pair;
	json_t *obj = text ? json_loads(text, JSON_DECODE_ANY, NULL) : json_object();
	size_t i;

	if (!json_is_object(obj)) {
		json_decref(obj);
		ax_fail(err, AX_CODE_NOMEM, "out of memory");
		return NULL;
	}
	json_array_foreach(pairs, i, pair) {
		const char *k = json_string_value(json_array_get(pair, 0)), *v = json_string_value(json_array_get(pair, 1));
		json_t *value = v ? json_loads(v, JSON_DECODE_ANY, NULL) : NULL;

		json_object_set_new(obj, k, value ? value : json_string(v ? v : ""));
	}
	return obj;
}

static int cmd_aio_mcp_call(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	const char *server = ax_arg_string(args, "SERVER"), *tool = ax_arg_string(args, "TOOL");
	const char *dir = ax_arg_string(args, "save-images");
	json_t *body, *result = NULL, *saved = json_array();
	long long secs;
	struct mcp_conn c = { 0 };
	int rc = -1;

	body = call_arguments(args, err);
	if (!body)
		goto out;
	if (ax_duration_parse(ax_arg_string(args, "timeout"), &secs, err) < 0)
		goto out;
	conn_open(ctx, (long)secs + CALL_MARGIN_S, &c);
	/* Only a given limit goes to the bridge (?timeout=); otherwise it keeps
	 * its own, which a remote AIO server may set differently from ours. */
	if (ax_arg_given(args, "timeout"))
		c.mcp.call_timeout_s = (long)secs;
	if (ax_mcp_call(&c.mcp, server, tool, body, &result, err) < 0)
		goto out;
	if (dir && ax_mcp_save_images(result, tool, dir, saved, err) < 0)
		goto out;
	if (ax_stream_mcp(ctx->stream, result, saved, err) < 0)
		goto out;
	res->kind = AX_RESULT_STREAM;
	res->data = json_pack("{s:s, s:s, s:s, s:O, s:O}", "sandbox_id", c.id, "server", server, "tool", tool,
			      "request", body, "result", result);
	if (dir)
		json_object_set(res->data, "saved_images", saved);
	if (!ax_mcp_is_error(result)) {
		rc = 0;
	} else {
		ax_fail(err, AX_CODE_MCP_TOOL_ERROR, "MCP tool '%s/%s' failed", server, tool);
		/* A document says isError; the exit status says it too. */
		rc = ax_stream_failed(ctx->stream, 1, err);
	}
out:
	json_decref(body);
	json_decref(result);
	json_decref(saved);
	conn_close(&c);
	return rc;
}

/* The table entries of the verbs above (cmd/command.h). */

static const ax_positional_spec mcp_tools_positionals[] = {
	{ .name = "SANDBOX_ID", .arity = AX_POS_OPTIONAL, .kind = AX_VAL_SANDBOX_ID,
	  .help = "the sandbox; default: the current session" },
	{ .name = "SERVER", .arity = AX_POS_REQUIRED, .kind = AX_VAL_TEXT,
	  .help = "an MCP server (aio mcp servers lists them)" },
	AX_POSITIONALS_END,
};

static const ax_positional_spec mcp_call_positionals[] = {
	{ .name = "SANDBOX_ID", .arity = AX_POS_OPTIONAL, .kind = AX_VAL_SANDBOX_ID,
	  .help = "the sandbox; default: the current session" },
	{ .name = "SERVER", .arity = AX_POS_REQUIRED, .kind = AX_VAL_TEXT,
	  .help = "an MCP server (aio mcp servers lists them)" },
	{ .name = "TOOL", .arity = AX_POS_REQUIRED, .kind = AX_VAL_TEXT,
	  .help = "one of its tools (aio mcp tools SERVER lists them)" },
	AX_POSITIONALS_END,
};

static const ax_option_spec aio_mcp_call_options[] = {
	{ .name = "args", .kind = AX_VAL_JSON_OBJECT, .metavar = "JSON",
	  .help = "the tool's arguments as a JSON object" },
	{ .name = "arg", .kind = AX_VAL_KV, .metavar = "KEY=VALUE", .repeatable = true,
	  .help = "one argument; VALUE is JSON when it parses as JSON, else a string (overrides --args)" },
	{ .name = "save-images", .kind = AX_VAL_LOCAL_DIR, .metavar = "DIR",
	  .help = "write image and audio content to DIR/<tool>_<n>.<ext>" },
	{ .name = "timeout", .short_name = 't', .kind = AX_VAL_DURATION, .metavar = "DURATION", .defval = "300",
	  .min = "1s", .help = "how long the call may take" },
	AX_OPTIONS_END,
};

static const char *const aio_mcp_servers_examples[] = {
	"allox-cli aio mcp servers -o json",
	NULL,
};

static const char *const aio_mcp_tools_examples[] = {
	"allox-cli aio mcp tools browser -o json",
	"allox-cli aio mcp tools sandbox",
	NULL,
};

static const char *const aio_mcp_call_examples[] = {
	"allox-cli aio mcp call browser browser_navigate --args '{\"url\":\"https://example.com\"}'",
	"allox-cli aio mcp call sandbox sandbox_execute_bash --arg cmd='uname -a'",
	"allox-cli aio mcp call browser browser_screenshot --save-images shots",
	NULL,
};

const ax_command_spec ax_aio_mcp_servers_verb = {
	.group = "aio", .name = "mcp servers", .summary = "List the sandbox's MCP servers",
	.description = "Through the AIO runtime's REST bridge, or its /mcp endpoint where the bridge is missing. "
	"Local sandboxes have the built-in sandbox and browser servers plus the profile's [mcp.servers.<name>] "
	"tables; the table shows where each configured server's stderr is logged.",
	.positionals = ax_sandbox_id_positionals, .formats = AX_OBJECT_FORMATS, .default_format = AX_FMT_TABLE,
	.target = AX_TARGET_AIO, .handler = cmd_aio_mcp_servers, .examples = aio_mcp_servers_examples,
};

const ax_command_spec ax_aio_mcp_tools_verb = {
	.group = "aio", .name = "mcp tools", .summary = "List the tools of an MCP server",
	.description = "An unknown server exits 1 and lists the servers. -o json prints the full tool objects "
	"(input schemas included).",
	.positionals = mcp_tools_positionals, .formats = AX_OBJECT_FORMATS, .default_format = AX_FMT_TABLE,
	.target = AX_TARGET_AIO, .handler = cmd_aio_mcp_tools, .examples = aio_mcp_tools_examples,
};

const ax_command_spec ax_aio_mcp_call_verb = {
	.group = "aio", .name = "mcp call", .summary = "Call a tool of an MCP server",
	.description = "Raw output prints text content, images as [mime, N bytes] (or saved with --save-images), "
	"other content as JSON, then structuredContent. Exits 1 when the tool reports isError or the server or "
	"tool is unknown (the error lists what exists), 2 for malformed --args.",
	.positionals = mcp_call_positionals, .options = aio_mcp_call_options,
	.formats = AX_FMT_RAW | AX_FMT_JSON, .default_format = AX_FMT_RAW, .target = AX_TARGET_AIO,
	.handler = cmd_aio_mcp_call, .examples = aio_mcp_call_examples,
};
