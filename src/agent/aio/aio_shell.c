/* POST /v1/shell/exec, /v1/shell/view, /v1/shell/wait and /v1/shell/kill.
 *
 * exec answers when the command ends, or earlier with the output so far:
 *   - async_mode: at once, status "running";
 *   - timeout T (soft): after T s, "running" (the command goes on);
 *   - no_change_timeout N (default 120, as an AIO session's): after N s
 *     without new output, "no_change_timeout" (the command goes on);
 *   - hard_timeout H: the process group is killed after H s, status
 *     "hard_timeout", exit_code -1. This holds even after an earlier
 *     "running" answer.
 * A soft timeout at or past the hard one is moot: the kill answers first.
 * exit_code is the shell's $? (128+N for signal N) and only set once the
 * command has ended. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "agent/aio/aio_common.h"
#include "agent/aio/aio_output.h"
#include "agent/aio/aio_run.h"
#include "agent/aio/aio_session.h"

#define NO_CHANGE_DEFAULT_S 120.0
/* How long past hard_timeout to wait for the killed command to be reaped. */
#define KILL_GRACE_S 5.0
/* A wait without any limit still ends, so a request cannot hang for ever. */
#define WAIT_MAX_S 3600.0

static const char *status_name(enum aio_status s)
{
	switch (s) {
	case AIO_RUNNING:
		return "running";
	case AIO_COMPLETED:
		return "completed";
	case AIO_NO_CHANGE_TIMEOUT:
		return "no_change_timeout";
	case AIO_HARD_TIMEOUT:
		return "hard_timeout";
	case AIO_TERMINATED:
		return "terminated";
	}
	return "running";
}

static enum MHD_Result reply_invalid(struct ag_req *req, struct aio_args *a)
{
	enum MHD_Result rc = aio_reply_invalid(req, a);

	aio_args_free(a);
	return rc;
}

/* The session id of a request: "id", checked. */
static const char *session_arg(struct aio_args *a, bool required)
{
	const char *id = aio_arg_str(a, "id", required);

	if (id && (!*id || strlen(id) > AIO_SESSION_ID_MAX)) {
		aio_args_invalid(a, "id", "string_too_long", "id must be 1 to 128 characters");
		return NULL;
	}
	return id;
}

/* exec_dir as AIO treats it: with strict, a missing directory is an error;
 * without, the command runs in the session's default directory. */
static const char *working_dir(const char *dir, bool strict, const char **problem)
{
	struct stat st;

	*problem = NULL;
	if (!dir || !*dir)
		return NULL;
	if (dir[0] != '/')
		*problem = "Working directory must be an absolute path";
	else if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		*problem = "Working directory does not exist";
	if (!*problem)
		return dir;
	if (!strict)
		*problem = NULL;
	return NULL;
}

static json_t *result_json(const char *session_id, const char *command, enum aio_status status,
			   const struct aio_run_state *st, bool with_exit)
{
	json_t *output = aio_json_bytes(st->output, st->output_len);

	return json_pack("{s:s,s:o,s:s,s:o,s:o,s:n}", "session_id", session_id, "command", ag_json_text(command),
			 "status", status_name(status), "output", output ? output : json_string(""), "exit_code",
			 with_exit ? json_integer(st->exit_code) : json_null(), "console");
}

static const char *exec_message(enum aio_status s)
{
	switch (s) {
	case AIO_COMPLETED:
		return "Command executed successfully";
	case AIO_HARD_TIMEOUT:
		return "Command was killed at its hard timeout";
	case AIO_NO_CHANGE_TIMEOUT:
		return "Command produced no new output in time; it is still running";
	case AIO_TERMINATED:
		return "Command was terminated";
	case AIO_RUNNING:
		break;
	}
	return "Command is still running";
}

struct exec_opts {
	bool async, truncate;
	bool has_soft, has_hard;
	double soft, hard, no_change;
};

/* Wait as OPTS say and tell what to answer. */
static enum aio_status exec_wait(struct aio_run *run, const struct exec_opts *o)
{
	struct timespec deadline = aio_deadline(WAIT_MAX_S);
	enum aio_wait why;

	if (o->async)
		return AIO_RUNNING;
	if (o->has_hard)
		deadline = aio_deadline(o->hard + KILL_GRACE_S);
	if (o->has_soft && (!o->has_hard || o->soft < o->hard))
		deadline = aio_deadline(o->soft);
	why = aio_run_wait(run, &deadline, o->no_change);
	if (why == AIO_WAIT_NO_CHANGE)
		return AIO_NO_CHANGE_TIMEOUT;
	/* Killed but not yet reaped (a process stuck in the kernel): still
	 * report the kill. */
	if (why == AIO_WAIT_DEADLINE && o->has_hard && !(o->has_soft && o->soft < o->hard))
		return AIO_HARD_TIMEOUT;
	return AIO_RUNNING;
}

static void exec_options(struct aio_args *a, struct exec_opts *o)
{
	long long nc;

	o->async = aio_arg_bool(a, "async_mode", false);
	o->truncate = aio_arg_bool(a, "truncate", true);
	o->has_soft = aio_arg_num(a, "timeout", &o->soft);
	if (o->soft < 0)
		o->soft = 0;
	o->has_hard = aio_arg_num(a, "hard_timeout", &o->hard) && o->hard > 0;
	o->no_change = NO_CHANGE_DEFAULT_S;
	if (aio_arg_int(a, "no_change_timeout", &nc))
		o->no_change = nc > 0 ? (double)nc : 0;
	aio_arg_bool(a, "preserve_symlinks", false);
}

enum MHD_Result aio_shell_exec(struct ag_req *req)
{
	struct exec_opts o = { 0 };
	struct aio_run_state st = { 0 };
	const char *command, *id, *cwd, *problem;
	struct aio_args a;
	char new_id[37];
	enum aio_status status;
	struct aio_run *run, *prev;
	enum MHD_Result rc;
	ax_error err;
	bool strict;

	aio_args_body(req, &a);
	command = aio_arg_str(&a, "command", true);
	id = session_arg(&a, false);
	cwd = aio_arg_str(&a, "exec_dir", false);
	strict = aio_arg_bool(&a, "strict", false);
	exec_options(&a, &o);
	if (!aio_args_ok(&a))
		return reply_invalid(req, &a);
	cwd = working_dir(cwd, strict, &problem);
	if (problem) {
		rc = ag_reply_failure(req, MHD_HTTP_BAD_REQUEST, "%s: %s", problem,
				      json_string_value(json_object_get(a.body, "exec_dir")));
		aio_args_free(&a);
		return rc;
	}
	if (!id) {
		aio_session_new_id(new_id);
		id = new_id;
	}
	prev = cwd ? NULL : aio_session_get(req->ctx->aio_sessions, id);
	/* An AIO session is one shell, where exec_dir is a cd that sticks. */
	if (prev && working_dir(aio_run_cwd(prev), false, &problem))
		cwd = aio_run_cwd(prev);
	run = aio_run_start(req->ctx, command, cwd, o.has_hard ? o.hard : 0, &err);
	aio_run_unref(prev);
	if (!run) {
		rc = ag_reply_failure(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "%s", err.message);
		aio_args_free(&a);
		return rc;
	}
	aio_session_put(req->ctx->aio_sessions, id, run);
	status = exec_wait(run, &o);
	if (aio_run_state(run, o.truncate ? AIO_OUTPUT_TRUNCATE : AIO_OUTPUT_KEEP, &st) < 0) {
		rc = ag_reply_failure(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	} else {
		/* The end, once it came, says more than why the wait stopped. */
		if (st.ended)
			status = st.status;
		else if (status == AIO_HARD_TIMEOUT)
			st.exit_code = AIO_EXIT_KILLED;
		rc = ag_reply_json(req, MHD_HTTP_OK,
				   ag_envelope(exec_message(status),
					       result_json(id, command, status, &st,
							   st.ended || status == AIO_HARD_TIMEOUT)));
	}
	free(st.output);
	aio_run_unref(run);
	aio_args_free(&a);
	return rc;
}

/* The session named by the request's "id", or a reply saying why not. */
static struct aio_run *session_of(struct ag_req *req, struct aio_args *a, enum MHD_Result *rc)
{
	const char *id;
	struct aio_run *run;

	aio_args_body(req, a);
	id = session_arg(a, true);
	if (!aio_args_ok(a)) {
		*rc = aio_reply_invalid(req, a);
		return NULL;
	}
	run = aio_session_get(req->ctx->aio_sessions, id);
	if (!run)
		*rc = ag_reply_failure(req, MHD_HTTP_NOT_FOUND, "Session not found: %s", id);
	return run;
}

enum MHD_Result aio_shell_view(struct ag_req *req)
{
	struct aio_run_state st = { 0 };
	struct aio_args a;
	struct aio_run *run;
	enum MHD_Result rc;
	json_t *data;

	run = session_of(req, &a, &rc);
	if (!run)
		goto out;
	if (aio_run_state(run, AIO_OUTPUT_KEEP, &st) < 0) {
		rc = ag_reply_failure(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	} else {
		data = result_json(json_string_value(json_object_get(a.body, "id")), aio_run_command(run), st.status,
				   &st, st.ended);
		rc = ag_reply_json(req, MHD_HTTP_OK, ag_envelope("Session content retrieved", data));
	}
	free(st.output);
	aio_run_unref(run);
out:
	aio_args_free(&a);
	return rc;
}

enum MHD_Result aio_shell_wait(struct ag_req *req)
{
	struct aio_run_state st = { 0 };
	struct timespec deadline;
	long long secs, max;
	struct aio_args a;
	struct aio_run *run;
	enum MHD_Result rc;
	double wait_s = WAIT_MAX_S;
	bool has_secs, has_max;

	run = session_of(req, &a, &rc);
	if (!run)
		goto out;
	has_secs = aio_arg_int(&a, "seconds", &secs);
	has_max = aio_arg_int(&a, "max_wait_seconds", &max);
	if (!aio_args_ok(&a)) {
		rc = aio_reply_invalid(req, &a);
		aio_run_unref(run);
		goto out;
	}
	if (has_secs)
		wait_s = (double)secs;
	if (has_max && (!has_secs || max < secs))
		wait_s = (double)max;
	deadline = aio_deadline(wait_s < 0 ? 0 : wait_s > WAIT_MAX_S ? WAIT_MAX_S : wait_s);
	aio_run_wait(run, &deadline, 0);
	if (aio_run_state(run, 0, &st) < 0)
		rc = ag_reply_failure(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	else
		rc = ag_reply_json(req, MHD_HTTP_OK,
				   ag_envelope("Wait finished", json_pack("{s:s}", "status", status_name(st.status))));
	free(st.output);
	aio_run_unref(run);
out:
	aio_args_free(&a);
	return rc;
}

enum MHD_Result aio_shell_kill(struct ag_req *req)
{
	struct aio_run_state st = { 0 };
	struct timespec deadline;
	struct aio_args a;
	struct aio_run *run;
	enum MHD_Result rc;
	bool was_live;
	json_t *code;

	run = session_of(req, &a, &rc);
	if (!run)
		goto out;
	was_live = aio_run_kill(run);
	deadline = aio_deadline(KILL_GRACE_S);
	aio_run_wait(run, &deadline, 0);
	if (aio_run_state(run, 0, &st) < 0) {
		rc = ag_reply_failure(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	} else {
		/* exit_code: the code it had ended with, null if it was still running. */
		code = !was_live && st.ended ? json_integer(st.exit_code) : json_null();
		rc = ag_reply_json(req, MHD_HTTP_OK,
				   ag_envelope(was_live ? "Process terminated" : "No process was running",
					       json_pack("{s:s,s:O,s:o}", "status",
							 status_name(was_live ? AIO_TERMINATED : st.status), "exit_code",
							 code, "returncode", code)));
	}
	free(st.output);
	aio_run_unref(run);
out:
	aio_args_free(&a);
	return rc;
}
