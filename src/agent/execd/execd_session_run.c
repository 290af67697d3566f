#include "agent/execd/execd_session_routes.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/core/reaper.h"
#include "agent/execd/execd_event.h"
#include "agent/execd/execd_http.h"
#include "agent/execd/execd_lines.h"
#include "agent/execd/execd_session.h"
#include "agent/execd/execd_stream.h"
#include "lib/fs.h"
#include "lib/timeutil.h"

#define PING_MS 3000
#define READ_CHUNK 4096
#define BLOCK_SIZE (16 * 1024)
/* After a kill, how long the shell has to report the run before the
 * session is given up (the shell itself may be what loops). */
#define KILL_GRACE_MS 2000
#define REAP_WAIT_MS 10000
/* After the status, read at most this many chunks left in the pipes: a
 * background job that keeps writing must not hold the reply. */
#define DRAIN_CHUNKS 256

struct run {
	const struct ag_ctx *ctx;
	struct ag_bash *s;
	struct ag_buf out;
	struct ag_lines lines[2];
	char status[64];
	size_t status_len;
	int64_t started, last_event, deadline, kill_deadline;
	int conn_fd;
	bool done;
	bool code;      /* a /code run (ag_bash_stream) */
};

static const char *const stream_type[2] = { "stdout", "stderr" };

struct line_sink {
	struct run *r;
	const char *type;
};

static int on_line(void *cls, const char *line, size_t len, bool ended)
{
	struct line_sink *k = cls;

	k->r->last_event = ax_mono_ms();
	return ag_event_output(&k->r->out, k->type, line, len, ended);
}

static int pipe_of(const struct run *r, int i)
{
	return i == 0 ? r->s->out_fd : r->s->err_fd;
}

/* Read what pipe I holds now (at most MAX chunks); -1 on ENOMEM. */
static int read_pipe(struct run *r, int i, int max)
{
	struct line_sink k = { r, stream_type[i] };
	char buf[READ_CHUNK];

	while (max-- > 0) {
		ssize_t n = read(pipe_of(r, i), buf, sizeof buf);

		if (n <= 0)
			return 0;
		if (ag_lines_feed(&r->lines[i], buf, (size_t)n, on_line, &k) < 0)
			return -1;
	}
	return 0;
}

/* The run is over with exit status CODE (or the shell's end, MESSAGE). */
static int finish(struct run *r, int code, const char *message)
{
	char value[16], trace[64];
	int i;

	for (i = 0; i < 2; i++) {
		struct line_sink k = { r, stream_type[i] };

		if (read_pipe(r, i, DRAIN_CHUNKS) < 0 || ag_lines_flush(&r->lines[i], on_line, &k) < 0)
			return -1;
	}
	r->done = true;
	if (!message && code == 0)
		return ag_event_complete(&r->out, ax_mono_ms() - r->started);
	if (r->code && !message)
		return ag_event_exit_status(&r->out, code);
	snprintf(value, sizeof value, "%d", code);
	snprintf(trace, sizeof trace, "exit status %d", code);
	return ag_event_error(&r->out, "CommandExecError", value, message ? message : trace);
}

/* A "SEQ STATUS\n" line for this run? Then its status in *CODE. Lines for
 * earlier runs (abandoned by their clients) are skipped. */
static int read_status(struct run *r, int *code)
{
	ssize_t n = read(r->s->status_fd, r->status + r->status_len, sizeof r->status - 1 - r->status_len);
	char *nl;

	if (n <= 0)
		return 0;
	r->status_len += (size_t)n;
	r->status[r->status_len] = '\0';
	while ((nl = strchr(r->status, '\n'))) {
		uint64_t seq;
		int rc, matched = sscanf(r->status, "%" SCNu64 " %d", &seq, &rc) == 2 && seq == r->s->seq;
		size_t used = (size_t)(nl - r->status) + 1;

		memmove(r->status, nl + 1, r->status_len - used + 1);
		r->status_len -= used;
		if (matched) {
			*code = rc;
			return 1;
		}
	}
	if (r->status_len == sizeof r->status - 1)
		r->status_len = 0;	/* nothing the driver writes is this long */
	return 0;
}

/* The shell has exited: a command ran exit, or it was deleted or killed. */
static int shell_ended(struct run *r)
{
	int status = 0, code = -1;

	/* Not ours to reap when a delete got there first. */
	if (ag_reaper_wait(r->ctx->reaper, r->s->pid, &status, REAP_WAIT_MS) == 0 && WIFEXITED(status))
		code = WEXITSTATUS(status);
	ag_bash_lost(r->ctx->sessions, r->s);
	return finish(r, code, "the session's shell has exited; the session is gone");
}

static int step(struct run *r)
{
	struct pollfd p[5];
	int64_t now = ax_mono_ms(), wait = PING_MS - (now - r->last_event);
	int i, code;

	if (r->deadline && now >= r->deadline && !r->kill_deadline) {
		ag_bash_kill_runs(r->s);
		r->kill_deadline = now + KILL_GRACE_MS;
	}
	if (r->kill_deadline && now >= r->kill_deadline) {
		kill(-r->s->pid, SIGKILL);
		r->kill_deadline = INT64_MAX;
	}
	if (r->deadline && !r->kill_deadline && r->deadline - now < wait)
		wait = r->deadline - now;
	if (wait < 0)
		wait = 0;
	p[0] = (struct pollfd){ .fd = r->s->out_fd, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = r->s->err_fd, .events = POLLIN };
	p[2] = (struct pollfd){ .fd = r->s->status_fd, .events = POLLIN };
	p[3] = (struct pollfd){ .fd = r->s->pidfd, .events = POLLIN };
	p[4] = (struct pollfd){ .fd = r->conn_fd, .events = POLLRDHUP };
	if (poll(p, 5, (int)(wait > 1000 ? 1000 : wait)) < 0 && errno != EINTR)
		return -1;
	if (p[4].revents & (POLLRDHUP | POLLHUP | POLLERR))
		return -1;
	for (i = 0; i < 2; i++)
		if ((p[i].revents & POLLIN) && read_pipe(r, i, 1) < 0)
			return -1;
	if ((p[2].revents & POLLIN) && read_status(r, &code))
		return finish(r, code, NULL);
	if (p[3].revents & POLLIN)
		return shell_ended(r);
	if (!ag_buf_pending(&r->out) && ax_mono_ms() - r->last_event >= PING_MS) {
		r->last_event = ax_mono_ms();
		return ag_event_text(&r->out, "ping", "pong", 4);
	}
	return 0;
}

static ssize_t read_events(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct run *r = cls;

	while (!ag_buf_pending(&r->out)) {
		if (r->done)
			return MHD_CONTENT_READER_END_OF_STREAM;
		if (step(r) < 0)
			return MHD_CONTENT_READER_END_WITH_ERROR;
	}
	return (ssize_t)ag_buf_take(&r->out, buf, max);
}

static void run_free(void *cls)
{
	struct run *r = cls;
	int i;

	/* Nobody will see the rest: stop what the run started, keep the shell.
	 * A /code run is interrupted instead, which ends a loop in the shell. */
	if (!r->done && r->code)
		kill(-r->s->pid, SIGINT);
	else if (!r->done)
		ag_bash_kill_runs(r->s);
	for (i = 0; i < 2; i++)
		ag_lines_free(&r->lines[i]);
	ag_buf_free(&r->out);
	ag_bash_end(r->ctx->sessions, r->s);
	free(r);
}

/* Output a killed or abandoned run left behind belongs to no one now. */
static void discard_leftovers(const struct ag_bash *s)
{
	char buf[READ_CHUNK];
	int i, fds[2] = { s->out_fd, s->err_fd };

	for (i = 0; i < 2; i++)
		while (read(fds[i], buf, sizeof buf) > 0)
			;
}

/* Hand the run to the shell: "SEQ\0CWD\0COMMAND\0", SEQ marked "c" for a
 * /code run. */
static int send_run(struct ag_bash *s, const char *cwd, const char *command, bool code)
{
	char seq[24];
	int n;

	s->seq++;
	n = snprintf(seq, sizeof seq, "%s%" PRIu64, code ? "c" : "", s->seq);
	return ax_write_all(s->in_fd, seq, (size_t)n + 1) < 0 ||
			       ax_write_all(s->in_fd, cwd ? cwd : "", cwd ? strlen(cwd) + 1 : 1) < 0 ||
			       ax_write_all(s->in_fd, command, strlen(command) + 1) < 0
		       ? -1
		       : 0;
}

enum MHD_Result ag_bash_stream(struct ag_req *req, struct ag_bash *s, const char *cwd, const char *command,
			       int64_t timeout_ms, bool code)
{
	struct run *r = calloc(1, sizeof *r);
	struct MHD_Response *resp = NULL;

	if (!r) {
		ag_bash_end(req->ctx->sessions, s);
		return ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "out of memory");
	}
	r->ctx = req->ctx;
	r->s = s;
	r->conn_fd = ag_connection_fd(req);
	r->code = code;
	discard_leftovers(s);
	if (send_run(s, cwd, command, code) < 0) {
		int e = errno;

		run_free(r);
		return ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME,
				      "the session's shell does not take commands: %s", strerror(e));
	}
	r->started = r->last_event = ax_mono_ms();
	r->deadline = timeout_ms > 0 ? r->started + timeout_ms : 0;
	/* A kernel numbers its cells; a context's runs are numbered already. */
	if (ag_event_text(&r->out, "init", s->id, strlen(s->id)) == 0 &&
	    (!code || ag_event_execution_count(&r->out, s->seq) == 0))
		resp = ag_with_stream_headers(
			MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, BLOCK_SIZE, read_events, r, run_free));
	if (!resp) {
		run_free(r);
		return MHD_NO;
	}
	return ag_reply_queue(req, MHD_HTTP_OK, resp);
}

/* A string field without NUL bytes (they cannot reach the shell), or NULL. */
static const char *plain(json_t *o, const char *key, bool *bad)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return NULL;
	if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v)) {
		*bad = true;
		return NULL;
	}
	return json_string_value(v);
}

/* The cwd a request names, made absolute into *ABS (NULL when none was
 * given). -1 after a reply when it is not a directory. */
static int take_cwd(struct ag_req *req, const char *cwd, char **abs, enum MHD_Result *rc)
{
	struct stat st;
	int e;

	*abs = NULL;
	if (!cwd || !*cwd)
		return 0;
	*abs = ag_abs_path(cwd);
	if (!*abs) {
		*rc = ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "out of memory");
		return -1;
	}
	if (stat(*abs, &st) < 0)
		e = errno;
	else if (!S_ISDIR(st.st_mode))
		e = ENOTDIR;
	else
		return 0;
	*rc = ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST, "working directory %s: %s", cwd,
			     strerror(e));
	free(*abs);
	*abs = NULL;
	return -1;
}

enum MHD_Result ag_execd_session_create(struct ag_req *req)
{
	enum MHD_Result rc = MHD_NO;
	char id[AG_SESSION_ID_LEN + 1], *cwd = NULL;
	bool bad = false;
	json_t *o = NULL;
	ax_error err;

	/* The body is optional: none means the defaults. */
	if (req->body_len && !(o = ag_execd_body_json(req, &rc)))
		return rc;
	if (o && !json_is_object(o)) {
		json_decref(o);
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST, "the body must be a JSON object");
	}
	if (take_cwd(req, o ? plain(o, "cwd", &bad) : NULL, &cwd, &rc) < 0 || bad) {
		json_decref(o);
		return bad ? ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST, "cwd must be a string")
			   : rc;
	}
	json_decref(o);
	if (ag_bash_create(req->ctx, cwd, false, id, &err) < 0)
		rc = ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "error creating session: %s",
				    err.message);
	else
		rc = ag_reply_json(req, MHD_HTTP_OK, json_pack("{s:s}", "session_id", id));
	free(cwd);
	return rc;
}

/* "{id}/run" in the path: the id into ID. */
static int run_id(const char *subpath, char id[AG_SESSION_ID_LEN + 1])
{
	const char *slash = strchr(subpath, '/');
	size_t len = slash ? (size_t)(slash - subpath) : 0;

	if (!slash || strcmp(slash, "/run") != 0 || len == 0 || len > AG_SESSION_ID_LEN)
		return -1;
	memcpy(id, subpath, len);
	id[len] = '\0';
	return 0;
}

static enum MHD_Result run_checked(struct ag_req *req, json_t *o, const char *id)
{
	const char *command, *cwd_arg;
	json_t *timeout = json_object_get(o, "timeout");
	enum MHD_Result rc = MHD_NO;
	struct ag_bash *s;
	bool bad = false, busy;
	char *cwd;

	command = plain(o, "command", &bad);
	cwd_arg = plain(o, "cwd", &bad);
	if (bad || !command || !*command)
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST,
				      "command is required (a non-empty string); cwd must be a string");
	if (timeout && !json_is_null(timeout) && (!json_is_integer(timeout) || json_integer_value(timeout) < 0))
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST,
				      "timeout must be a positive integer (milliseconds)");
	if (take_cwd(req, cwd_arg, &cwd, &rc) < 0)
		return rc;
	s = ag_bash_begin(req->ctx->sessions, id, &busy);
	if (!s)
		/* 400, not 404: the spec declares no 404 for this route. */
		rc = ag_execd_error(req, MHD_HTTP_BAD_REQUEST, busy ? AG_E_INVALID_REQUEST : AG_E_CONTEXT_NOT_FOUND,
				    busy ? "session %s is running another command" : "session not found: %s", id);
	else
		rc = ag_bash_stream(req, s, cwd, command, json_is_integer(timeout) ? json_integer_value(timeout) : 0, false);
	free(cwd);
	return rc;
}

enum MHD_Result ag_execd_session_run(struct ag_req *req)
{
	char id[AG_SESSION_ID_LEN + 1];
	enum MHD_Result rc = MHD_NO;
	json_t *o;

	if (run_id(req->subpath, id) < 0)
		return ag_execd_error(req, MHD_HTTP_NOT_FOUND, "NOT_FOUND", "Not found: %s", req->path);
	o = ag_execd_body_json(req, &rc);
	if (!o)
		return rc;
	if (!json_is_object(o))
		rc = ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST, "the body must be a JSON object");
	else
		rc = run_checked(req, o, id);
	json_decref(o);
	return rc;
}

enum MHD_Result ag_execd_session_delete(struct ag_req *req)
{
	const char *id = req->subpath;

	if (!*id || strchr(id, '/'))
		return ag_execd_error(req, MHD_HTTP_NOT_FOUND, "NOT_FOUND", "Not found: %s", req->path);
	if (ag_bash_delete(req->ctx, id) < 0)
		return ag_execd_error(req, MHD_HTTP_NOT_FOUND, AG_E_CONTEXT_NOT_FOUND, "session not found: %s", id);
	return ag_reply_empty(req, MHD_HTTP_OK);
}
