/* aio jupyter run: code in the sandbox's Jupyter kernel (POST /v1/jupyter/execute). */
#include "cmd/command.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/aio_call.h"
#include "lib/duration.h"
#include "lib/fs.h"
#include "cmd/hook.h"
#include "cmd/target.h"
#include "cmd/verbs.h"
#include "cmd/common.h"

/* The agent's limit on a request body, which the code travels in. */
#define CODE_MAX ((size_t)16 << 20)
/* Beyond the timeout, the request may take a kernel start (up to 60 s) and
 * the interrupt's grace. */
#define REQUEST_MARGIN_S 90

/* All of standard input. */
static int read_stdin(char **code, ax_error *err)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;

	for (;;) {
		if (len == cap) {
			char *grown;

			if (cap >= CODE_MAX) {
				free(buf);
				return ax_fail(err, AX_CODE_TOO_LARGE, "the code on standard input is over %zu MiB",
					       CODE_MAX >> 20);
			}
			cap = cap ? cap * 2 : 65536;
			grown = realloc(buf, cap + 1);
			if (!grown) {
				free(buf);
				return ax_fail(err, AX_CODE_NOMEM, "out of memory");
			}
			buf = grown;
		}
		n = read(STDIN_FILENO, buf + len, cap - len);
		if (n == 0)
			break;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return ax_fail(err, AX_CODE_IO, "cannot read standard input: %s", strerror(errno));
		}
		len += (size_t)n;
	}
	buf[len] = '\0';
	*code = buf;
	return 0;
}

static int no_such_file(const char *file, ax_error *err)
{
	return ax_fail(err, AX_CODE_NOT_FOUND, "%s: No such file or directory", file);
}

/* The code comes from -c or -f, not both, and a named file exists: checked
 * before the sandbox is connected. */
static int check_aio_jupyter_run(const ax_ctx *ctx, const ax_args *args, ax_error *err)
{
	const char *inline_code = ax_arg_string(args, "code"), *file = ax_arg_string(args, "file");

	if (inline_code && file)
		return ax_fail(err, AX_CODE_USAGE, "give the code with -c or -f, not both");
	if (!inline_code && !file)
		return ax_fail(err, AX_CODE_USAGE, "missing code: give -c CODE, -f FILE or -f - (standard input)");
	if (file && strcmp(file, "-") != 0 && access(file, F_OK) < 0 && errno == ENOENT)
		return no_such_file(file, err);
	return 0;
}

/* The code from -c, -f FILE or -f - (standard input); malloc'd. */
static int read_code(const ax_args *args, char **code, ax_error *err)
{
	const char *inline_code = ax_arg_string(args, "code"), *file = ax_arg_string(args, "file");
	size_t len;
	int rc;

	*code = NULL;
	if (inline_code) {
		*code = strdup(inline_code);
		return *code ? 0 : ax_fail(err, AX_CODE_NOMEM, "out of memory");
	}
	if (strcmp(file, "-") == 0)
		return read_stdin(code, err);
	rc = ax_read_file(file, code, &len, err);
	if (rc > 0)
		return no_such_file(file, err);
	if (rc == 0 && len > CODE_MAX) {
		free(*code);
		*code = NULL;
		return ax_fail(err, AX_CODE_TOO_LARGE, "%s: over %zu MiB", file, CODE_MAX >> 20);
	}
	return rc;
}

static json_t *request_body(const char *code, const ax_args *args, long long secs, ax_error *err)
{
	const char *session = ax_arg_string(args, "session");
	/* Only when given: an existing session keeps its kernel, and python3 (the
	 * table's default) is what the server starts for a new one anyway. */
	const char *kernel = ax_arg_given(args, "kernel") ? ax_arg_string(args, "kernel") : NULL;
	json_t *body = json_pack("{s:s, s:I}", "code", code, "timeout", (json_int_t)secs);

	if (!body) {
		ax_fail(err, AX_CODE_ENCODING, "the code is not UTF-8 text");
		return NULL;
	}
	if (session)
		json_object_set_new(body, "session_id", json_string(session));
	if (kernel)
		json_object_set_new(body, "kernel_name", json_string(kernel));
	return body;
}

/* Hand DATA to the renderer; the exit status (1 when the code did not end ok). */
static int report(ax_ctx *ctx, const ax_args *args, json_t *data, ax_result *res, ax_error *err)
{
	const char *status = json_string_value(json_object_get(data, "status")) ?: "unknown";

	if (ax_stream_jupyter(ctx->stream, data, ax_arg_string(args, "save-images"), err) < 0)
		return -1;
	res->kind = AX_RESULT_STREAM;
	res->data = json_incref(data);
	if (strcmp(status, "ok") == 0)
		return 0;
	ax_fail(err, AX_CODE_JUPYTER, "Jupyter execution status: %s", status);
	if (strcmp(status, "timeout") == 0)
		ax_error_hint(err, "The kernel was interrupted at the timeout (--timeout) and keeps its state.");
	/* A document has the status in it; the exit status says it too. */
	return ax_stream_failed(ctx->stream, 1, err);
}

static int cmd_aio_jupyter_run(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	const char *id = ctx->target->sandbox_id;
	char *code = NULL;
	json_t *body = NULL, *data = NULL;
	long long secs;
	int rc = -1;

	/* The table bounds it by the AIO API's limits (1s to 300s). */
	if (ax_duration_parse(ax_arg_string(args, "timeout"), &secs, err) < 0 || read_code(args, &code, err) < 0)
		return -1;
	body = request_body(code, args, secs, err);
	if (!body)
		goto out;
	ctx->target->runtime.timeout_s = (long)secs + REQUEST_MARGIN_S;
	rc = ax_aio_call(&ctx->target->runtime, "/v1/jupyter/execute", body, "Jupyter execution returned no data", &data,
			 err);
	if (rc < 0)
		goto out;
	rc = report(ctx, args, data, res, err);
	if (rc == 0 && ax_after_success(ctx, "aio.jupyter", id, err) < 0)
		rc = -1;
out:
	json_decref(body);
	json_decref(data);
	free(code);
	return rc;
}

/* The table entries of the verbs above (cmd/command.h). */

static const ax_option_spec aio_jupyter_run_options[] = {
	{ .name = "code", .short_name = 'c', .kind = AX_VAL_TEXT, .metavar = "CODE", .help = "the code to run" },
	{ .name = "file", .short_name = 'f', .kind = AX_VAL_LOCAL_PATH, .metavar = "FILE",
	  .help = "run the code in FILE; - reads standard input" },
	{ .name = "session", .kind = AX_VAL_TEXT, .metavar = "ID",
	  .help = "the session to run in, one kernel each (default: the sandbox's shared session)" },
	{ .name = "kernel", .kind = AX_VAL_TEXT, .metavar = "NAME", .defval = "python3",
	  .help = "kernelspec of a new session (GET /v1/jupyter/info lists them)" },
	{ .name = "timeout", .kind = AX_VAL_DURATION, .metavar = "DURATION", .defval = "30", .min = "1s", .max = "300s",
	  .help = "interrupt the code after this long, 1s to 300s (status timeout)" },
	{ .name = "save-images", .kind = AX_VAL_LOCAL_DIR, .metavar = "DIR",
	  .help = "write image/png outputs to DIR/output_<count>_<index>.png" },
	AX_OPTIONS_END,
};

static const char *const aio_jupyter_run_examples[] = {
	"allox-cli aio jupyter run -c \"print(2 + 2)\" -o json",
	"allox-cli aio jupyter run -c \"x = 41\" && allox-cli aio jupyter run -c \"x + 1\"",
	"allox-cli aio jupyter run -f analysis.py --timeout 5m --save-images plots",
	"echo 'import sys; sys.version' | allox-cli aio jupyter run -f - --session s1",
	NULL,
};

const ax_command_spec ax_aio_jupyter_run_verb = {
	.group = "aio", .name = "jupyter run", .summary = "Run code in the sandbox's Jupyter kernel",
	.description = "Each session is one kernel that keeps its variables; without --session, calls share the "
	"sandbox's default session, so consecutive calls see each other's state. The kernel starts on first use. "
	"Raw output is what a notebook shows: streams on stdout and stderr, text/plain results, errors with "
	"their traceback on stderr (coloured only on a terminal). A timeout interrupts the code; the kernel "
	"keeps its state. Exits 1 when the status is not ok (error or timeout); -o json prints the result object "
	"{kernel_name, session_id, status, execution_count, outputs, code, msg_id}.",
	.positionals = ax_sandbox_id_positionals, .options = aio_jupyter_run_options,
	.formats = AX_FMT_RAW | AX_FMT_JSON, .default_format = AX_FMT_RAW, .target = AX_TARGET_AIO,
	.check = check_aio_jupyter_run, .handler = cmd_aio_jupyter_run,
	.examples = aio_jupyter_run_examples,
};
