#include "agent/execd/execd_command.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/execd/execd_background.h"
#include "agent/execd/execd_http.h"
#include "agent/execd/execd_registry.h"
#include "agent/execd/execd_stream.h"
#include "agent/core/ident.h"
#include "lib/timeutil.h"

/* How long DELETE /command lets a command handle SIGTERM before SIGKILL
 * (the official execd's figure). */
#define INTERRUPT_GRACE_MS 3000

/* RunCommandRequest, validated. */
struct run_request {
	const char *command;
	char *cwd;              /* absolute, or NULL for $HOME */
	bool background;
	int64_t timeout_ms;     /* 0: none */
	char **env;             /* "K=V", NULL-terminated */
	bool has_uid, has_gid;  /* run as uid (and gid), else as the agent */
	uid_t uid;
	gid_t gid;
};

static void run_request_free(struct run_request *r)
{
	size_t i;

	for (i = 0; r->env && r->env[i]; i++)
		free(r->env[i]);
	free(r->env);
	free(r->cwd);
}


/* A JSON string without NUL bytes (they cannot reach exec). */
static const char *plain_string(json_t *v)
{
	const char *s = json_string_value(v);

	return s && strlen(s) == json_string_length(v) ? s : NULL;
}

static int parse_envs(json_t *envs, struct run_request *r, char *msg, size_t size)
{
	const char *key;
	json_t *value;
	size_t n = 0;

	if (!envs || json_is_null(envs))
		return 0;
	if (!json_is_object(envs))
		return ag_msg_fail(msg, size, "envs must be an object of strings");
	r->env = calloc(json_object_size(envs) + 1, sizeof *r->env);
	if (!r->env)
		return ag_msg_fail(msg, size, "out of memory");
	json_object_foreach(envs, key, value) {
		const char *v = plain_string(value);

		if (!v)
			return ag_msg_fail(msg, size, "envs[%s] must be a string", key);
		if (!*key || strchr(key, '='))
			return ag_msg_fail(msg, size, "invalid environment variable name '%s'", key);
		if (asprintf(&r->env[n], "%s=%s", key, v) < 0) {
			r->env[n] = NULL;
			return ag_msg_fail(msg, size, "out of memory");
		}
		n++;
	}
	return 0;
}

static int parse_cwd(json_t *cwd, struct run_request *r, char *msg, size_t size)
{
	const char *s;
	struct stat st;

	if (!cwd || json_is_null(cwd))
		return 0;
	s = plain_string(cwd);
	if (!s)
		return ag_msg_fail(msg, size, "cwd must be a string");
	if (!*s)
		return 0;
	r->cwd = ag_abs_path(s);
	if (!r->cwd)
		return ag_msg_fail(msg, size, "out of memory");
	if (stat(r->cwd, &st) < 0)
		return ag_msg_fail(msg, size, "working directory %s: %s", s, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return ag_msg_fail(msg, size, "working directory %s: %s", s, strerror(ENOTDIR));
	return 0;
}

/* A uid or gid: the official execd's *uint32, so 0 to 4294967295. */
static int parse_id(json_t *v, bool *set, uint32_t *id)
{
	*set = v && !json_is_null(v);
	if (!*set)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > (json_int_t)UINT32_MAX)
		return -1;
	*id = (uint32_t)json_integer_value(v);
	return 0;
}

static int parse_ids(json_t *uid, json_t *gid, struct run_request *r, char *msg, size_t size)
{
	uint32_t u = 0, g = 0;

	if (parse_id(uid, &r->has_uid, &u) < 0 || parse_id(gid, &r->has_gid, &g) < 0)
		return ag_msg_fail(msg, size, "uid and gid must be integers from 0 to %" PRIu32, UINT32_MAX);
	if (r->has_gid && !r->has_uid)
		return ag_msg_fail(msg, size, "uid is required when gid is provided");
	r->uid = (uid_t)u;
	r->gid = (gid_t)g;
	return 0;
}

static int parse_run(json_t *o, struct run_request *r, char *msg, size_t size)
{
	json_t *bg = json_object_get(o, "background"), *timeout = json_object_get(o, "timeout");

	if (!json_is_object(o))
		return ag_msg_fail(msg, size, "the body must be a JSON object");
	r->command = plain_string(json_object_get(o, "command"));
	if (!r->command || !*r->command)
		return ag_msg_fail(msg, size, "command is required (a non-empty string)");
	if (bg && !json_is_null(bg) && !json_is_boolean(bg))
		return ag_msg_fail(msg, size, "background must be a boolean");
	r->background = json_is_true(bg);
	if (timeout && !json_is_null(timeout)) {
		if (!json_is_integer(timeout) || json_integer_value(timeout) < 0)
			return ag_msg_fail(msg, size, "timeout must be a positive integer (milliseconds)");
		r->timeout_ms = json_integer_value(timeout);
	}
	if (parse_ids(json_object_get(o, "uid"), json_object_get(o, "gid"), r, msg, size) < 0)
		return -1;
	if (parse_envs(json_object_get(o, "envs"), r, msg, size) < 0)
		return -1;
	return parse_cwd(json_object_get(o, "cwd"), r, msg, size);
}

/* Start R's command as CMD, as the user it names: in the background (the
 * thread then owns CMD's reference), or in *PROC for the caller to stream. */
static int spawn(const struct ag_ctx *ctx, const struct run_request *r, struct ag_cmd *cmd, struct ag_proc *proc,
		 ax_error *err)
{
	const char *const *env = (const char *const *)r->env;
	struct ag_ident ident;
	int rc;

	if (r->has_uid && ag_ident_lookup(r->uid, r->has_gid ? &r->gid : NULL, &ident, err) < 0)
		return -1;
	if (r->background)
		rc = ag_background_start(ctx, cmd, r->command, r->cwd, env, r->has_uid ? &ident : NULL,
					 r->timeout_ms, err);
	else
		rc = ag_proc_start_as(ctx, r->command, r->cwd, env, false, r->has_uid ? &ident : NULL, proc, err);
	if (r->has_uid)
		ag_ident_free(&ident);
	return rc;
}

static enum MHD_Result start(struct ag_req *req, const struct run_request *r)
{
	struct ag_cmd *cmd = ag_cmd_create(req->ctx->execd, r->command, r->background);
	char id[AG_CMD_ID_LEN + 1];
	struct ag_proc proc;
	ax_error err;

	if (!cmd)
		return ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "out of memory");
	memcpy(id, ag_cmd_id(cmd), sizeof id);
	if (spawn(req->ctx, r, cmd, &proc, &err) < 0) {
		ag_cmd_finish(cmd, 255, err.message);
		ag_cmd_put(cmd);
		/* As the official execd: a background start that fails is an
		 * error answer, a foreground one an error event. */
		if (r->background)
			return ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME,
					      "error running commands %s", err.message);
		return ag_stream_reply_failed(req, id, err.message);
	}
	if (r->background)
		return ag_stream_reply_started(req, id);
	ag_cmd_set_pid(cmd, proc.pid);
	return ag_stream_reply(req, &proc, cmd, r->timeout_ms);
}

enum MHD_Result ag_execd_run(struct ag_req *req)
{
	struct run_request r = { 0 };
	json_error_t jerr;
	json_t *o = json_loadb(req->body, req->body_len, 0, &jerr);
	enum MHD_Result rc;
	char msg[512];

	if (!o) {
		rc = ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST,
				    "error parsing request, MAYBE invalid body format. %s", jerr.text);
	} else if (parse_run(o, &r, msg, sizeof msg) < 0) {
		rc = ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST,
				    "invalid request, validation error %s", msg);
	} else {
		rc = start(req, &r);
	}
	run_request_free(&r);
	json_decref(o);
	return rc;
}

enum MHD_Result ag_execd_interrupt(struct ag_req *req)
{
	const char *id = ag_query(req, "id", NULL);

	if (!id || !*id)
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_MISSING_QUERY, "missing query parameter 'id'");
	switch (ag_cmd_interrupt(req->ctx->execd, id, INTERRUPT_GRACE_MS)) {
	case 0:
		return ag_reply_empty(req, MHD_HTTP_OK);
	case -2:
		return ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME,
				      "error interrupting command %s: it is not running", id);
	default:
		return ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME,
				      "error interrupting command %s: no such command", id);
	}
}

static json_t *status_json(const struct ag_cmd_status *st)
{
	json_t *o = json_object();
	char ts[32];

	json_object_set_new(o, "id", json_string(st->id));
	json_object_set_new(o, "content", ag_json_text(st->content));
	json_object_set_new(o, "running", json_boolean(st->running));
	if (st->has_exit)
		json_object_set_new(o, "exit_code", json_integer(st->exit_code));
	if (st->error)
		json_object_set_new(o, "error", ag_json_text(st->error));
	ax_time_rfc3339(st->started.tv_sec, ts);
	json_object_set_new(o, "started_at", json_string(ts));
	if (!st->running) {
		ax_time_rfc3339(st->finished.tv_sec, ts);
		json_object_set_new(o, "finished_at", json_string(ts));
	}
	return o;
}

enum MHD_Result ag_execd_status(struct ag_req *req)
{
	struct ag_cmd_status st;
	const char *id = req->subpath;
	json_t *o;

	if (!*id)
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST, "missing command execution id");
	if (ag_cmd_status_get(req->ctx->execd, id, &st) < 0)
		return ag_execd_error(req, MHD_HTTP_NOT_FOUND, AG_E_INVALID_REQUEST, "command not found: %s", id);
	o = status_json(&st);
	ag_cmd_status_free(&st);
	return ag_reply_json(req, MHD_HTTP_OK, o);
}

/* ?cursor=N: a byte offset into the combined log, as the official execd
 * implements it (the spec's "line" wording notwithstanding). Anything
 * unparsable counts as 0, as there. */
static int parse_cursor(const char *s, int64_t *cursor)
{
	char *end;
	long long v;

	*cursor = 0;
	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end)
		return 0;
	if (v < 0)
		return -1;
	*cursor = v;
	return 0;
}

static enum MHD_Result reply_log(struct ag_req *req, int fd, int64_t cursor)
{
	struct MHD_Response *resp;
	char tail[32];
	struct stat st;

	if (fstat(fd, &st) < 0) {
		close(fd);
		return ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "log: %s", strerror(errno));
	}
	/* Past the end means at the end, so a later poll misses nothing. */
	if (cursor > st.st_size)
		cursor = st.st_size;
	if (cursor == st.st_size) {
		close(fd);
		resp = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
	} else {
		/* A snapshot of the log up to now, sent straight from the file. */
		resp = MHD_create_response_from_fd_at_offset64((uint64_t)(st.st_size - cursor), fd,
							       (uint64_t)cursor);
		if (!resp)
			close(fd);
	}
	if (!resp)
		return MHD_NO;
	snprintf(tail, sizeof tail, "%" PRId64, (int64_t)st.st_size);
	MHD_add_response_header(resp, "EXECD-COMMANDS-TAIL-CURSOR", tail);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	return ag_reply_queue(req, MHD_HTTP_OK, resp);
}

enum MHD_Result ag_execd_logs(struct ag_req *req)
{
	const char *slash = strchr(req->subpath, '/');
	char id[AG_CMD_ID_LEN + 1];
	int64_t cursor;
	size_t len;
	int fd = -1;

	if (!slash || strcmp(slash, "/logs") != 0)
		return ag_execd_error(req, MHD_HTTP_NOT_FOUND, AG_E_UNKNOWN, "Not found: %s", req->path);
	len = (size_t)(slash - req->subpath);
	if (len == 0)
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_MISSING_QUERY, "missing command execution id");
	if (len > AG_CMD_ID_LEN)
		return ag_execd_error(req, MHD_HTTP_NOT_FOUND, AG_E_INVALID_REQUEST, "command not found: %.*s",
				      (int)len, req->subpath);
	memcpy(id, req->subpath, len);
	id[len] = '\0';
	if (parse_cursor(ag_query(req, "cursor", NULL), &cursor) < 0)
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST, "cursor cannot be negative");
	switch (ag_cmd_log_dup(req->ctx->execd, id, &fd)) {
	case 0:
		return reply_log(req, fd, cursor);
	case -1:
		return ag_execd_error(req, MHD_HTTP_NOT_FOUND, AG_E_INVALID_REQUEST, "command not found: %s", id);
	case -2:
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST,
				      "command %s is not running in background", id);
	default:
		return ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME,
				      "error opening the log of command %s", id);
	}
}
