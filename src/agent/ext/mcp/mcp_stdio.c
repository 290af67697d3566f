/* A configured MCP server over stdio (see mcp_stdio.h). The process is
 * forked like a Jupyter kernel (jupyter_launch.h): reaper locked across the
 * fork, a process group of its own, a pidfd to notice its death. */
#include "agent/ext/mcp/mcp_stdio.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/fs.h"
#include "agent/ext/jupyter/jupyter_launch.h"
#include "agent/core/log.h"
#include "agent/ext/mcp/mcp_jsonrpc.h"
#include "agent/core/reaper.h"
#include "agent/core/proc_spawn.h"
#include "lib/timeutil.h"

#define HANDSHAKE_TIMEOUT_MS 60000
/* After closing its stdin, how long a server gets to exit before SIGTERM. */
#define EOF_GRACE_MS 500
#define TERM_GRACE_MS 1000

struct mcp_stdio {
	pthread_mutex_t lock;
	char *name, *cwd, *log_path;
	json_t *command, *env;
	struct ag_reaper *reaper;
	struct jl_proc proc;
	int in_fd, out_fd;
	struct mcp_lines lines;
	json_int_t next_id;
	unsigned starts;
	char *version;
	json_t *server_info;
	json_t *caps;           /* declared in initialize */
	char last_exit[96];
};

/* How EXCHANGE failed. */
enum { XCHG_OK = 0, XCHG_FAILED = -1, XCHG_UNSENT = -2, XCHG_DIED = -3 };

struct mcp_stdio *mcp_stdio_new(const char *name, const json_t *command, const json_t *env, const char *cwd,
				const char *log_path, struct ag_reaper *reaper)
{
	struct mcp_stdio *s = calloc(1, sizeof *s);

	if (!s)
		return NULL;
	pthread_mutex_init(&s->lock, NULL);
	s->name = strdup(name);
	s->cwd = cwd ? strdup(cwd) : NULL;
	s->log_path = strdup(log_path);
	s->command = json_deep_copy(command);
	s->env = env ? json_deep_copy(env) : json_object();
	s->caps = json_object();
	s->reaper = reaper;
	s->proc.pidfd = -1;
	s->in_fd = s->out_fd = -1;
	if (!s->name || (cwd && !s->cwd) || !s->log_path || !s->command || !s->env || !s->caps) {
		mcp_stdio_free(s);
		return NULL;
	}
	return s;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Forget the process (it has ended or is being stopped) and its pipes. */
static void reap(struct mcp_stdio *s, int wait_ms)
{
	char why[80];

	close_fd(&s->in_fd);
	close_fd(&s->out_fd);
	mcp_lines_free(&s->lines);
	if (s->proc.pid > 0) {
		jl_signal(&s->proc, SIGKILL);   /* whatever it left in its group */
		jl_collect(s->reaper, &s->proc, wait_ms, why, sizeof why);
		snprintf(s->last_exit, sizeof s->last_exit, "%s", why);
	}
	free(s->version);
	s->version = NULL;
}

static void stop(struct mcp_stdio *s)
{
	if (s->proc.pid <= 0)
		return;
	/* The polite way first: a server exits at EOF on its stdin. */
	close_fd(&s->in_fd);
	if (!jl_ended(&s->proc, EOF_GRACE_MS)) {
		jl_signal(&s->proc, SIGTERM);
		jl_ended(&s->proc, TERM_GRACE_MS);
	}
	reap(s, 1000);
}

void mcp_stdio_free(struct mcp_stdio *s)
{
	if (!s)
		return;
	stop(s);
	free(s->name);
	free(s->cwd);
	free(s->log_path);
	json_decref(s->command);
	json_decref(s->env);
	json_decref(s->server_info);
	json_decref(s->caps);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* In the forked child: async-signal-safe calls only; a failure is reported
 * as an errno through REPORT_FD. */
static void __attribute__((noreturn)) run_server(const char *program, char *const *argv, char *const *env,
						 const char *cwd, int in_fd, int out_fd, int log_fd, int report_fd)
{
	int e;

	ag_child_setup();
	if (dup2(in_fd, STDIN_FILENO) >= 0 && dup2(out_fd, STDOUT_FILENO) >= 0 && dup2(log_fd, STDERR_FILENO) >= 0 &&
	    cwd && chdir(cwd) == 0) {
		ag_child_close_fds(report_fd);
		execve(program, argv, env);
	}
	e = errno;
	if (write(report_fd, &e, sizeof e) < 0) {
		/* the parent sees exit 127 */
	}
	_exit(127);
}

struct launch {
	char **argv;
	char **extra;   /* "K=V" */
	char **envp;
	char *program;
	const char *cwd;
};

static void launch_free(struct launch *l)
{
	size_t i;

	for (i = 0; l->argv && l->argv[i]; i++)
		free(l->argv[i]);
	for (i = 0; l->extra && l->extra[i]; i++)
		free(l->extra[i]);
	free(l->argv);
	free(l->extra);
	free(l->envp);
	free(l->program);
}

static int launch_prepare(struct mcp_stdio *s, struct launch *l, struct ag_error *err)
{
	size_t n = json_array_size(s->command), i = 0;
	const char *k, *home = getenv("HOME");
	json_t *v;

	memset(l, 0, sizeof *l);
	l->argv = calloc(n + 1, sizeof *l->argv);
	l->extra = calloc(json_object_size(s->env) + 1, sizeof *l->extra);
	if (!l->argv || !l->extra)
		return ag_fail_code(err, 500, MCP_INTERNAL_ERROR, "out of memory");
	for (i = 0; i < n; i++)
		if (!(l->argv[i] = strdup(json_string_value(json_array_get(s->command, i)))))
			return ag_fail_code(err, 500, MCP_INTERNAL_ERROR, "out of memory");
	i = 0;
	json_object_foreach(s->env, k, v)
		if (asprintf(&l->extra[i], "%s=%s", k, json_string_value(v)) >= 0)
			i++;
	l->envp = ag_child_environ((const char *const *)l->extra);
	if (!l->envp)
		return ag_fail_code(err, 500, MCP_INTERNAL_ERROR, "out of memory");
	l->program = ag_find_program(l->argv[0], l->envp);
	if (!l->program)
		return ag_fail_code(err, 500, MCP_INTERNAL_ERROR, "MCP server '%s': program not found: %.200s", s->name,
				    l->argv[0]);
	l->cwd = s->cwd ? s->cwd : home && *home ? home : "/";
	return 0;
}

struct server_exec {
	const struct launch *l;
	int in_fd, out_fd, log_fd;
};

static void server_main(void *arg, int report_fd)
{
	const struct server_exec *x = arg;

	run_server(x->l->program, x->l->argv, x->l->envp, x->l->cwd, x->in_fd, x->out_fd, x->log_fd, report_fd);
}

static int spawn(struct mcp_stdio *s, struct ag_error *err)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, log_fd = -1, e, rc = -1;
	struct launch l;
	struct server_exec x = { .l = &l };
	const char *step;
	ax_error ae;

	if (launch_prepare(s, &l, err) < 0)
		goto out;
	if (ax_mkdir_parent(s->log_path, 0700, &ae) < 0) {
		ag_fail_code(err, 500, MCP_INTERNAL_ERROR, "MCP server '%s': log: %s", s->name, ae.message);
		goto out;
	}
	log_fd = open(s->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (log_fd < 0 || pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0) {
		ag_fail_code(err, 500, MCP_INTERNAL_ERROR, "MCP server '%s': %s: %s", s->name,
			     log_fd < 0 ? s->log_path : "pipe", strerror(errno));
		goto out;
	}
	x.in_fd = in[0];
	x.out_fd = out[1];
	x.log_fd = log_fd;
	e = ag_child_fork(s->reaper, server_main, &x, &s->proc.pid, &s->proc.pidfd, &step);
	close_fd(&in[0]);
	close_fd(&out[1]);
	if (e && !s->proc.pid) {
		ag_fail_code(err, 500, MCP_INTERNAL_ERROR, "MCP server '%s': %s: %s", s->name, step, strerror(e));
		goto out;
	}
	if (e) {
		jl_stop(s->reaper, &s->proc, 0);
		ag_fail_code(err, 500, MCP_INTERNAL_ERROR, "MCP server '%s': %s %.200s: %s", s->name, step, l.program,
			     strerror(e));
		goto out;
	}
	s->in_fd = in[1];
	s->out_fd = out[0];
	in[1] = out[0] = -1;
	s->starts++;
	ag_log("MCP server %s started (pid %d, log %s)", s->name, (int)s->proc.pid, s->log_path);
	rc = 0;
out:
	close_fd(&in[0]);
	close_fd(&in[1]);
	close_fd(&out[0]);
	close_fd(&out[1]);
	close_fd(&log_fd);
	launch_free(&l);
	return rc;
}

static int send_msg(struct mcp_stdio *s, json_t *msg)
{
	size_t len;
	char *line = msg ? mcp_encode_line(msg, &len) : NULL;
	int rc;

	json_decref(msg);
	if (!line)
		return -1;
	rc = ax_write_all(s->in_fd, line, len);
	free(line);
	return rc;
}

/* A request from the server: we are a tool-calling client with no
 * capabilities, so everything but ping is refused at once (never a hang). */
static void answer(struct mcp_stdio *s, const json_t *msg)
{
	const char *method = json_string_value(json_object_get(msg, "method"));
	const json_t *id = json_object_get(msg, "id");

	if (strcmp(method, "ping") == 0) {
		send_msg(s, mcp_result(id, NULL));
		return;
	}
	ag_log("MCP server %s asked for %s: refused (not supported)", s->name, method);
	send_msg(s, mcp_error(id, MCP_METHOD_NOT_FOUND, "Method not found"));
}

static int died(struct mcp_stdio *s, struct ag_error *err)
{
	reap(s, 2000);
	ag_fail_code(err, 502, MCP_INTERNAL_ERROR, "MCP server '%s' exited (%s); its stderr is in %s", s->name,
		     s->last_exit, s->log_path);
	return XCHG_DIED;
}

/* Lines until the reply to ID; XCHG_* */
static int await_reply(struct mcp_stdio *s, json_int_t id, const char *method, long long deadline, json_t **reply,
		       struct ag_error *err)
{
	char buf[65536];

	for (;;) {
		char *line;

		while ((line = mcp_lines_next(&s->lines))) {
			json_t *msg = json_loads(line, 0, NULL);
			enum mcp_kind kind = mcp_classify(msg);

			free(line);
			if (kind == MCP_RESPONSE && mcp_is_response_to(msg, id)) {
				*reply = msg;
				return XCHG_OK;
			}
			if (kind == MCP_REQUEST)
				answer(s, msg);
			/* Notifications, stale replies and non-JSON lines are dropped. */
			json_decref(msg);
		}
		{
			struct pollfd p = { .fd = s->out_fd, .events = POLLIN };
			long long left = deadline - ax_mono_ms();
			ssize_t n;
			int r;

			if (left <= 0) {
				send_msg(s, mcp_notification("notifications/cancelled",
							     json_pack("{s:I, s:s}", "requestId", id, "reason", "timeout")));
				ag_fail_code(err, 504, -32001, "MCP server '%s': %s timed out", s->name, method);
				return XCHG_FAILED;
			}
			r = poll(&p, 1, left > 1000 ? 1000 : (int)left);
			if (r < 0 && errno != EINTR)
				return died(s, err);
			if (r <= 0)
				continue;
			n = read(s->out_fd, buf, sizeof buf);
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n <= 0)
				return died(s, err);
			if (mcp_lines_feed(&s->lines, buf, (size_t)n) < 0)
				return ag_fail_code(err, 500, MCP_INTERNAL_ERROR, "out of memory");
		}
	}
}

/* One request and its reply; PARAMS is borrowed. */
static int exchange(struct mcp_stdio *s, const char *method, const json_t *params, int timeout_ms, json_t **result,
		    struct ag_error *err)
{
	json_int_t id = ++s->next_id;
	json_t *reply = NULL, *e;
	int rc;

	*result = NULL;
	if (send_msg(s, mcp_request(id, method, params ? json_deep_copy(params) : NULL)) < 0) {
		if (errno == EPIPE)
			return XCHG_UNSENT;
		return ag_fail_code(err, 500, MCP_INTERNAL_ERROR, "MCP server '%s': write: %s", s->name, strerror(errno));
	}
	rc = await_reply(s, id, method, ax_mono_ms() + timeout_ms, &reply, err);
	if (rc != XCHG_OK)
		return rc;
	e = json_object_get(reply, "error");
	if (e) {
		ag_fail_code(err, 502, json_is_integer(json_object_get(e, "code")) ? (int)json_integer_value(json_object_get(e, "code")) : MCP_INTERNAL_ERROR,
			     "MCP server '%s': %s", s->name, json_string_value(json_object_get(e, "message")) ?: "error");
		json_decref(reply);
		return XCHG_FAILED;
	}
	*result = json_incref(json_object_get(reply, "result"));
	json_decref(reply);
	if (!json_is_object(*result)) {
		json_decref(*result);
		*result = NULL;
		return ag_fail_code(err, 502, MCP_INTERNAL_ERROR, "MCP server '%s': %s: the result is not an object", s->name,
				    method);
	}
	return XCHG_OK;
}

/* Start the process and shake hands. */
static int start(struct mcp_stdio *s, struct ag_error *err)
{
	json_t *params, *result = NULL;
	const char *version;
	int rc;

	if (spawn(s, err) < 0)
		return -1;
	params = json_pack("{s:s, s:O, s:{s:s, s:s}}", "protocolVersion", MCP_LATEST_VERSION, "capabilities",
			   s->caps, "clientInfo", "name", "allox-agent", "version", "1");
	rc = exchange(s, "initialize", params, HANDSHAKE_TIMEOUT_MS, &result, err);
	json_decref(params);
	if (rc == XCHG_UNSENT)
		rc = died(s, err);
	if (rc != XCHG_OK) {
		stop(s);
		return -1;
	}
	version = json_string_value(json_object_get(result, "protocolVersion"));
	if (!mcp_version_known(version)) {
		ag_fail_code(err, 502, MCP_INTERNAL_ERROR, "MCP server '%s' speaks protocol version %.40s, which we do not",
			     s->name, version ? version : "(none)");
		json_decref(result);
		stop(s);
		return -1;
	}
	s->version = strdup(version);
	json_decref(s->server_info);
	s->server_info = json_incref(json_object_get(result, "serverInfo"));
	json_decref(result);
	/* Only after the reply (servers shape their tools on it). */
	if (send_msg(s, mcp_notification("notifications/initialized", NULL)) < 0) {
		died(s, err);
		return -1;
	}
	return 0;
}

static bool running(struct mcp_stdio *s)
{
	if (s->proc.pid > 0 && jl_ended(&s->proc, 0))
		reap(s, 1000);
	return s->proc.pid > 0;
}

int mcp_stdio_request(struct mcp_stdio *s, const char *method, json_t *params, int timeout_ms, json_t **result,
		      struct ag_error *err)
{
	int rc = -1, attempt;

	*result = NULL;
	pthread_mutex_lock(&s->lock);
	for (attempt = 0; attempt < 2; attempt++) {
		int x;

		if (!running(s) && start(s, err) < 0)
			break;
		x = exchange(s, method, params, timeout_ms, result, err);
		if (x == XCHG_OK)
			rc = 0;
		/* It died before it could have read the request: safe to try a fresh one. */
		if (x != XCHG_UNSENT)
			break;
		reap(s, 1000);
		ag_fail_code(err, 502, MCP_INTERNAL_ERROR, "MCP server '%s' exited (%s)", s->name, s->last_exit);
	}
	pthread_mutex_unlock(&s->lock);
	json_decref(params);
	return rc;
}

void mcp_stdio_set_capabilities(struct mcp_stdio *s, const json_t *caps)
{
	json_t *copy = json_deep_copy(caps);

	if (!json_is_object(copy)) {
		json_decref(copy);
		return;
	}
	pthread_mutex_lock(&s->lock);
	json_decref(s->caps);
	s->caps = copy;
	pthread_mutex_unlock(&s->lock);
}

json_t *mcp_stdio_status(struct mcp_stdio *s)
{
	json_t *o;

	pthread_mutex_lock(&s->lock);
	o = json_pack("{s:s, s:s, s:O, s:b, s:i, s:s}", "name", s->name, "type", "stdio", "command", s->command,
		      "running", running(s), "restarts", s->starts > 1 ? (int)s->starts - 1 : 0, "log", s->log_path);
	if (o && s->proc.pid > 0)
		json_object_set_new(o, "pid", json_integer(s->proc.pid));
	if (o && s->cwd)
		json_object_set_new(o, "cwd", json_string(s->cwd));
	if (o && s->version)
		json_object_set_new(o, "protocol_version", json_string(s->version));
	if (o && s->server_info)
		json_object_set(o, "server_info", s->server_info);
	if (o && s->last_exit[0])
		json_object_set_new(o, "last_exit", json_string(s->last_exit));
	pthread_mutex_unlock(&s->lock);
	return o;
}
