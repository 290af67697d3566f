/* run [SANDBOX_ID] COMMAND...: a command through execd, output streamed. */
#include "cmd/command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/common.h"
#include "lib/duration.h"
#include "api/execd_command.h"
#include "cmd/hook.h"
#include "cmd/target.h"
#include "cmd/groups.h"
#include "lib/timeutil.h"

#define EXIT_TIMEOUT 124

typedef struct run_output {
	ax_stream *stream;
	bool write_failed;
} run_output;

/* execd sends one event per line, without its terminator; a line that did
 * not end there gets none. */
static int on_output(void *user, bool is_stderr, const char *text, size_t len, bool ended)
{
	run_output *o = user;
	ax_stream_fd fd = is_stderr ? AX_STREAM_ERR : AX_STREAM_OUT;

	if (ax_stream_write(o->stream, fd, text, len) < 0 || (ended && ax_stream_write(o->stream, fd, "\n", 1) < 0)) {
		o->write_failed = true;
		return -1;
	}
	return 0;
}

static int cmd_run(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	const char *uuid, **words = NULL, *t = ax_arg_string(args, "timeout"), *id = ctx->target->sandbox_id;
	char *line = NULL;
	size_t n;
	long long secs = 0;
	ax_command_run run;
	ax_command_events ev;
	ax_command_end end;
	json_t *out_text = NULL, *err_text = NULL;
	run_output o = { ctx->stream, false };
	int64_t t0;
	int code = 0, status = -1;

	/* The target took a leading sandbox UUID; the words after it are the command. */
	if (ax_split_target(args, &uuid, &words, &n, err) < 0)
		return -1;
	if (t && ax_duration_parse(t, &secs, err) < 0)
		goto out;
	line = ax_shell_join((const char *const *)words, n);
	if (!line) {
		ax_fail(err, AX_CODE_NOMEM, "out of memory");
		goto out;
	}
	if (ctx->verbose)
		fprintf(ctx->err, "[verbose] execd run: %s (sandbox=%s)\n", line, id);
	memset(&run, 0, sizeof run);
	run.command = line;
	run.cwd = ax_arg_string(args, "workdir");
	run.timeout_ms = secs * 1000;
	run.stop = ctx->interrupted;
	ev.on_output = on_output;
	ev.user = &o;
	ctx->catch_interrupts();
	t0 = ax_mono_ms();
	if (ax_execd_run(&ctx->target->runtime, &run, &ev, &end, &code, err) < 0) {
		if (o.write_failed)
			ax_fail(err, AX_CODE_IO, "cannot write the command's output");
		goto out;
	}
	if (end == AX_COMMAND_TIMED_OUT) {
		code = EXIT_TIMEOUT;
		fprintf(ctx->err, "Error: command timed out after %llds\n", secs);
	} else if (end == AX_COMMAND_INTERRUPTED) {
		code = 128 + (int)*ctx->interrupted;
		fprintf(ctx->err, "Interrupted: the command was stopped\n");
	}
	/* Documents carry what the stream kept; live output is already shown. */
	out_text = ax_stream_kept(ctx->stream, AX_STREAM_OUT);
	err_text = ax_stream_kept(ctx->stream, AX_STREAM_ERR);
	if (!out_text || !err_text) {
		/* Output that is not UTF-8 can't be a JSON string; say so rather than guess. */
		ax_fail(err, AX_CODE_ENCODING, "the command's output is not valid UTF-8; use -o raw");
		goto out;
	}
	res->kind = AX_RESULT_STREAM;
	res->data = json_pack("{s:i, s:O, s:O, s:i}", "exit_code", code, "stdout", out_text, "stderr", err_text,
			      "duration_ms", (int)(ax_mono_ms() - t0));
	status = code;
	if (end == AX_COMMAND_EXITED && code == 0 && ax_after_success(ctx, "run", id, err) < 0)
		status = -1;
out:
	json_decref(out_text);
	json_decref(err_text);
	free(words);
	free(line);
	return status;
}

/* The table entries of the verbs above (cmd/command.h). */

static const ax_option_spec run_options[] = {
	{ .name = "workdir", .short_name = 'w', .kind = AX_VAL_REMOTE_PATH, .metavar = "DIR",
	  .help = "working directory (default /home/gem)" },
	{ .name = "timeout", .short_name = 't', .kind = AX_VAL_DURATION, .metavar = "DURATION",
	  .help = "end the command after this long (exit 124)" },
	AX_OPTIONS_END,
};

static const char *const run_examples[] = {
	"allox-cli run -- python3 -c 'print(1)'",
	"allox-cli run -o json -- sh -c 'exit 7'",
	"allox-cli run --timeout 10s -w /tmp -- make test",
	NULL,
};

static const ax_command_spec run_verb = {
	.group = "run", .name = "", .summary = "Run a command in a sandbox through execd",
	.description = "Streams the command's stdout and stderr to yours as they arrive and exits with its exit "
	"status (124 when --timeout ends it, 130 on Ctrl-C). Options come before the command; a leading sandbox "
	"UUID selects the sandbox, otherwise the current session is used. -o json prints {exit_code, stdout, "
	"stderr, duration_ms} alone on stdout.",
	.positionals = ax_command_positionals, .options = run_options,
	.formats = AX_FMT_RAW | AX_FMT_JSON, .default_format = AX_FMT_RAW, .flags = AX_CMD_OPTIONS_FIRST,
	.target = AX_TARGET_EXECD, .handler = cmd_run, .examples = run_examples,
};

static const ax_command_spec *const run_verbs[] = {
	&run_verb,
	NULL,
};

const ax_group_spec ax_group_run = {
	.name = "run",
	.summary = "Run a command in a sandbox through execd",
	.verbs = run_verbs,
};
