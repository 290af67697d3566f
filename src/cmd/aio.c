/* aio exec | read: the AIO runtime's shell and file API. */
#include "command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aio.h"
#include "aio_stream.h"
#include "common.h"
#include "duration.h"
#include "execd_command.h"
#include "hook.h"
#include "runtime.h"

#define EXIT_TIMEOUT 124

/* Connect to the AIO runtime of the resolved sandbox; *ID is malloc'd. */
static int open_aio(ax_ctx *ctx, const char *given, const ax_args *args, long timeout_s, char **id, ax_lifecycle *lc,
		    ax_http *aio, ax_error *err)
{
	*id = given ? strdup(given) : ax_resolve_sandbox(ctx, args, err);
	if (!*id)
		return -1;
	if (ax_open_lifecycle(ctx, lc, err) < 0)
		return -1;
	if (ax_runtime_connect(lc, *id, (int)ax_config_int(ctx->config, "aio_port"), timeout_s, aio, err) < 0) {
		char cause[sizeof err->message];

		snprintf(cause, sizeof cause, "%s", err->message);
		ax_lc_close(lc);
		ax_fail(err, AX_EXIT_FAILURE, "AIO_CONNECT", "Failed to connect to AIO sandbox '%s': %.600s", *id, cause);
		ax_error_hint(err, "Check the endpoint with: allox-cli sandbox endpoint %s", *id);
		return -1;
	}
	if (ctx->verbose)
		fprintf(ctx->err, "[verbose] AIO client: %s\n", aio->base);
	return 0;
}

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

int ax_cmd_aio_exec(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	const char *uuid, **words = NULL, *status, *output, *problem;
	char *id = NULL, *line = NULL, why[128];
	long long secs;
	size_t n;
	ax_lifecycle lc;
	ax_http aio;
	json_t *body = NULL, *data = NULL, *code;
	int rc = -1, exit_status, streamed;
	bool connected = false;

	if (ax_split_target(args, &uuid, &words, &n, err) < 0)
		return -1;
	if (ax_duration_parse(ax_arg_string(args, "timeout"), &secs, err) < 0)
		goto out;
	line = ax_shell_join(words, n);
	if (!line) {
		ax_fail(err, AX_EXIT_FAILURE, "NOMEM", "out of memory");
		goto out;
	}
	/* The HTTP request outlives the command's own limit by a margin. */
	if (open_aio(ctx, uuid, args, (long)secs + 10, &id, &lc, &aio, err) < 0)
		goto out;
	connected = true;
	body = json_pack("{s:s, s:b, s:I, s:I}", "command", line, "async_mode", 0, "timeout", (json_int_t)secs,
			 "hard_timeout", (json_int_t)secs);
	if (ax_arg_string(args, "workdir"))
		json_object_set_new(body, "exec_dir", json_string(ax_arg_string(args, "workdir")));
	if (args->format != AX_FMT_JSON) {
		/* Raw output streams as the command writes it (aio_stream.c). */
		streamed = ax_aio_exec_stream(ctx, &aio, body, stdout, &data, err);
		if (streamed != 0) {
			rc = streamed;
			goto out;
		}
	} else if (ax_aio_call(&aio, "/v1/shell/exec", body, "AIO shell returned no command result", &data, err) < 0)
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
	if (args->format == AX_FMT_JSON) {
		res->kind = AX_RESULT_DATA;
		res->data = json_pack("{s:O?, s:s, s:s, s:O?, s:s?, s:s?}", "session_id", json_object_get(data, "session_id"),
				      "status", status, "output", output, "exit_code", code, "message", NULL, "error",
				      problem);
		if (!json_object_get(res->data, "exit_code"))
			json_object_set_new(res->data, "exit_code", json_null());
	} else {
		if (!data || fflush(stdout) != 0) {
			ax_fail(err, AX_EXIT_FAILURE, "IO", "cannot write output");
			goto out;
		}
		if (problem && exit_status == EXIT_TIMEOUT)
			fprintf(ctx->err, "Error: %s\n", problem);
	}
	rc = exit_status;
	if (exit_status == 0 && ax_after_success(ctx, "aio.exec", id, err) < 0)
		rc = -1;
out:
	json_decref(body);
	json_decref(data);
	if (connected) {
		if (rc < 0)
			ax_runtime_explain(&lc, id, err);
		ax_http_free(&aio);
		ax_lc_close(&lc);
	}
	free(words);
	free(line);
	free(id);
	return rc;
}

int ax_cmd_aio_read(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	const char *path = ax_arg_string(args, "PATH"), *content;
	char *id = NULL;
	ax_lifecycle lc;
	ax_http aio;
	json_t *body, *data = NULL;
	int rc = -1;

	if (open_aio(ctx, ax_arg_string(args, "SANDBOX_ID"), args, (long)ax_config_int(ctx->config, "request_timeout"),
		     &id, &lc, &aio, err) < 0) {
		free(id);
		return -1;
	}
	body = json_pack("{s:s}", "file", path);
	if (ax_aio_call(&aio, "/v1/file/read", body, "File read returned no data", &data, err) == 0) {
		content = json_string_value(json_object_get(data, "content")) ?: "";
		if (args->format == AX_FMT_JSON) {
			res->kind = AX_RESULT_DATA;
			res->data = json_pack("{s:s, s:s}", "path", path, "content", content);
		} else {
			res->kind = AX_RESULT_DATA;
			res->data = json_string(content);
		}
		rc = 0;
	}
	json_decref(body);
	json_decref(data);
	if (rc < 0)
		ax_runtime_explain(&lc, id, err);
	ax_http_free(&aio);
	ax_lc_close(&lc);
	free(id);
	return rc;
}

int ax_open_aio(ax_ctx *ctx, const char *given, const ax_args *args, long timeout_s, char **id, ax_lifecycle *lc,
		ax_http *aio, ax_error *err)
{
	return open_aio(ctx, given, args, timeout_s, id, lc, aio, err);
}
