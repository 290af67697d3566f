/* run [SANDBOX_ID] COMMAND...: a command through execd, output streamed. */
#include "command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "duration.h"
#include "execd_command.h"
#include "hook.h"
#include "target.h"

#define EXIT_TIMEOUT 124

typedef struct run_output {
	ax_ctx *ctx;
	bool collect;          /* -o json: keep output for the document */
	FILE *out, *err;       /* memstreams when collecting */
	char *out_buf, *err_buf;
	size_t out_len, err_len;
	bool write_failed;
} run_output;

static int on_output(void *user, bool is_stderr, const char *text, size_t len, bool ended)
{
	run_output *o = user;
	FILE *f = o->collect ? (is_stderr ? o->err : o->out) : (is_stderr ? stderr : stdout);

	/* execd sends one event per line, without its terminator; a line that
	 * did not end there gets none. */
	if (fwrite(text, 1, len, f) != len || (ended && fputc('\n', f) == EOF) || (!o->collect && fflush(f) != 0)) {
		o->write_failed = true;
		return -1;
	}
	return 0;
}

static double ms_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) * 1e3 + (double)(now.tv_nsec - t0->tv_nsec) / 1e6;
}

int ax_cmd_run(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	const char *uuid, **words = NULL, *t = ax_arg_string(args, "timeout"), *id = ctx->target->sandbox_id;
	char *line = NULL;
	size_t n;
	long long secs = 0;
	ax_command_run run;
	ax_command_events ev;
	ax_command_end end;
	run_output o;
	struct timespec t0;
	int code = 0, status = -1;

	memset(&o, 0, sizeof o);
	/* The target took a leading sandbox UUID; the words after it are the command. */
	if (ax_split_target(args, &uuid, &words, &n, err) < 0)
		return -1;
	if (t && ax_duration_parse(t, &secs, err) < 0)
		goto out;
	line = ax_shell_join((const char *const *)words, n);
	if (!line) {
		ax_fail(err, AX_EXIT_FAILURE, "NOMEM", "out of memory");
		goto out;
	}
	if (ctx->verbose)
		fprintf(ctx->err, "[verbose] execd run: %s (sandbox=%s)\n", line, id);
	o.ctx = ctx;
	o.collect = args->format == AX_FMT_JSON;
	if (o.collect) {
		o.out = open_memstream(&o.out_buf, &o.out_len);
		o.err = open_memstream(&o.err_buf, &o.err_len);
		if (!o.out || !o.err) {
			ax_fail(err, AX_EXIT_FAILURE, "NOMEM", "out of memory");
			goto out;
		}
	}
	memset(&run, 0, sizeof run);
	run.command = line;
	run.cwd = ax_arg_string(args, "workdir");
	run.timeout_ms = secs * 1000;
	run.stop = ctx->interrupted;
	ev.on_output = on_output;
	ev.user = &o;
	ctx->catch_interrupts();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (ax_execd_run(&ctx->target->runtime, &run, &ev, &end, &code, err) < 0) {
		if (o.write_failed)
			ax_fail(err, AX_EXIT_FAILURE, "IO", "cannot write the command's output");
		goto out;
	}
	if (end == AX_COMMAND_TIMED_OUT) {
		code = EXIT_TIMEOUT;
		fprintf(ctx->err, "Error: command timed out after %llds\n", secs);
	} else if (end == AX_COMMAND_INTERRUPTED) {
		code = 128 + (int)*ctx->interrupted;
		fprintf(ctx->err, "Interrupted: the command was stopped\n");
	}
	if (o.collect) {
		fflush(o.out);
		fflush(o.err);
		res->kind = AX_RESULT_DATA;
		res->data = json_pack("{s:i, s:s%, s:s%, s:i}", "exit_code", code, "stdout", o.out_buf ? o.out_buf : "",
				      o.out_len, "stderr", o.err_buf ? o.err_buf : "", o.err_len, "duration_ms",
				      (int)ms_since(&t0));
		if (!res->data) {
			/* Output that is not UTF-8 can't be a JSON string; say so rather than guess. */
			ax_fail(err, AX_EXIT_FAILURE, "ENCODING", "the command's output is not valid UTF-8; use -o raw");
			goto out;
		}
	}
	status = code;
	if (end == AX_COMMAND_EXITED && code == 0 && ax_after_success(ctx, "run", id, err) < 0)
		status = -1;
out:
	if (o.out)
		fclose(o.out);
	if (o.err)
		fclose(o.err);
	free(o.out_buf);
	free(o.err_buf);
	free(words);
	free(line);
	return status;
}
