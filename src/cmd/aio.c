/* aio exec | read: the AIO runtime's shell and file API. */
#include "cmd/command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/aio_call.h"
#include "cmd/aio_stream.h"
#include "cmd/common.h"
#include "lib/duration.h"
#include "api/execd_command.h"
#include "cmd/hook.h"
#include "cmd/target.h"
#include "cmd/groups.h"
#include "cmd/verbs.h"

#define EXIT_TIMEOUT 124

static const char *exec_error(const char *status, const json_t *exit_code, char *buf, size_t size, long long t)
{
	if (strcmp(status, "hard_timeout") == 0 || strcmp(status, "running") == 0)
		snprintf(buf, size, "Command timed out after %lld seconds", t);
	else if (strcmp(status, "no_change_timeout") == 0)
		snprintf(buf, size, "Command stopped after producing no new output");
	else if (!json_is_integer(exit_code))
		snprintf(buf, size, "Command result did not include a valid exit code");
	else if (json_integer_value(exit_code) != 0)
		snprintf(buf, size, "Command exited with code %lld", (long long)json_integer_value(exit_code));
	else
		return NULL;
	return buf;
}

static int cmd_aio_exec(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	const char *uuid, **words = NULL, *status, *output, *problem, *id = ctx->target->sandbox_id;
	char *line = NULL, why[128];
	long long secs;
	size_t n;
	ax_http *aio = &ctx->target->runtime;
	json_t *body = NULL, *data = NULL, *code;
	int rc = -1, exit_status, streamed;

	if (ax_split_target(args, &uuid, &words, &n, err) < 0)
		return -1;
	if (ax_duration_parse(ax_arg_string(args, "timeout"), &secs, err) < 0)
		goto out;
	line = ax_shell_join(words, n);
	if (!line) {
		ax_fail(err, AX_CODE_NOMEM, "out of memory");
		goto out;
	}
	/* The HTTP request outlives the command's own limit by a margin. */
	aio->timeout_s = (long)secs + 10;
	body = json_pack("{s:s, s:b, s:I, s:I}", "command", line, "async_mode", 0, "timeout", (json_int_t)secs,
			 "hard_timeout", (json_int_t)secs);
	if (ax_arg_string(args, "workdir"))
		json_object_set_new(body, "exec_dir", json_string(ax_arg_string(args, "workdir")));
	if (ax_stream_live(ctx->stream)) {
		/* Shown as the command writes it (aio_stream.c); a document
		 * needs only the end, which one call gives. */
		streamed = ax_aio_exec_stream(ctx, aio, body, &data, err);
		if (streamed != 0) {
			rc = streamed;
			goto out;
		}
	} else if (ax_aio_call(aio, "/v1/shell/exec", body, "AIO shell returned no command result", &data, err) < 0)
		goto out;
	status = json_string_value(json_object_get(data, "status")) ?: "unknown";
	output = json_string_value(json_object_get(data, "output")) ?: "";
	code = json_object_get(data, "exit_code");
	problem = exec_error(status, code, why, sizeof why, secs);
	if (strcmp(status, "completed") != 0 && strcmp(status, "terminated") != 0 && problem &&
	    strstr(problem, "timed out"))
		exit_status = EXIT_TIMEOUT;
	else if (strcmp(status, "no_change_timeout") == 0)
		exit_status = EXIT_TIMEOUT;
	else if (json_is_integer(code) && json_integer_value(code) >= 0 && json_integer_value(code) <= 255)
		exit_status = (int)json_integer_value(code);
	else
		exit_status = 1;
	res->kind = AX_RESULT_STREAM;
	res->data = json_pack("{s:O?, s:s, s:s, s:O?, s:s?, s:s?}", "session_id", json_object_get(data, "session_id"),
			      "status", status, "output", output, "exit_code", code, "message", NULL, "error", problem);
	if (!json_object_get(res->data, "exit_code"))
		json_object_set_new(res->data, "exit_code", json_null());
	/* The document's error field says it for programs. */
	if (problem && exit_status == EXIT_TIMEOUT)
		ax_stream_printf(ctx->stream, AX_STREAM_ERR, "Error: %s\n", problem);
	rc = exit_status;
	if (exit_status == 0 && ax_after_success(ctx, "aio.exec", id, err) < 0)
		rc = -1;
out:
	json_decref(body);
	json_decref(data);
	free(words);
	free(line);
	return rc;
}

static int cmd_aio_read(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	const char *path = ax_arg_string(args, "PATH"), *content;
	json_t *body, *data = NULL;
	int rc = -1;

	body = json_pack("{s:s}", "file", path);
	if (ax_aio_call(&ctx->target->runtime, "/v1/file/read", body, "File read returned no data", &data, err) == 0) {
		content = json_string_value(json_object_get(data, "content")) ?: "";
		/* People get the content as it is; programs a document naming the path. */
		res->kind = AX_RESULT_DATA;
		res->data = json_pack("{s:s, s:s}", "path", path, "content", content);
		res->human = json_string(content);
		rc = 0;
	}
	json_decref(body);
	json_decref(data);
	return rc;
}

/* The table entries of the verbs above (cmd/command.h). */

static const ax_option_spec aio_exec_options[] = {
	{ .name = "workdir", .short_name = 'w', .kind = AX_VAL_REMOTE_PATH, .metavar = "DIR",
	  .help = "working directory (default /home/gem)" },
	{ .name = "timeout", .short_name = 't', .kind = AX_VAL_DURATION, .metavar = "DURATION", .defval = "60",
	  .min = "1s", .help = "end the command after this long (exit 124)" },
	AX_OPTIONS_END,
};

static const char *const aio_exec_examples[] = {
	"allox-cli aio exec -- sh -c \"echo v1 > /home/gem/version.txt\"",
	"allox-cli aio exec -o json ls -la",
	NULL,
};

static const ax_command_spec aio_exec_verb = {
	.group = "aio", .name = "exec", .summary = "Run a shell command through the AIO runtime",
	.description = "The arguments are shell-quoted and joined, so what you type is what runs. Exits with the "
	"command's exit status, 124 on timeout. Options come before the command.",
	.positionals = ax_command_positionals, .options = aio_exec_options,
	.formats = AX_FMT_RAW | AX_FMT_JSON, .default_format = AX_FMT_RAW, .flags = AX_CMD_OPTIONS_FIRST,
	.target = AX_TARGET_AIO, .handler = cmd_aio_exec, .examples = aio_exec_examples,
};

static const ax_command_spec aio_read_verb = {
	.group = "aio", .name = "read", .summary = "Print a file through the AIO runtime",
	.positionals = ax_path_positionals, .formats = AX_FMT_RAW | AX_FMT_JSON, .default_format = AX_FMT_RAW,
	.target = AX_TARGET_AIO, .handler = cmd_aio_read,
};

static const ax_command_spec *const aio_verbs[] = {
	&aio_exec_verb,
	&aio_read_verb,
	&ax_aio_jupyter_run_verb,
	&ax_aio_browser_info_verb,
	&ax_aio_screenshot_verb,
	&ax_aio_mcp_servers_verb,
	&ax_aio_mcp_tools_verb,
	&ax_aio_mcp_call_verb,
	NULL,
};

const ax_group_spec ax_group_aio = {
	.name = "aio",
	.summary = "Shell, files, Jupyter, browser and MCP through the AIO runtime",
	.verbs = aio_verbs,
};
