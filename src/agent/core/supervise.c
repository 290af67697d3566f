/* Status file shapes, one JSON object rewritten atomically on every change:
 *   {"state":"none"}
 *   {"state":"running","pid":N,"argv":[...],"startedAt":"RFC3339Z"}
 *   {"state":"exited","pid":N,"argv":[...],"startedAt":...,"exitCode":N,"finishedAt":...}
 *   {"state":"signaled", ... "signal":N,"finishedAt":...}
 *   {"state":"failed","argv":[...],"startedAt":...,"error":"exec x: ...","finishedAt":...}
 */
#include "agent/core/supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/fs.h"
#include "agent/core/log.h"
#include "agent/core/proc_spawn.h"
#include "lib/timeutil.h"

extern char **environ;

/* What the child reports through the CLOEXEC pipe when it cannot exec. */
struct spawn_failure {
	int stage;      /* 0: open /dev/null, 1: exec */
	int err;
};

static const char *state_name(enum ag_ep_state st)
{
	switch (st) {
	case AG_EP_RUNNING:
		return "running";
	case AG_EP_EXITED:
		return "exited";
	case AG_EP_SIGNALED:
		return "signaled";
	case AG_EP_FAILED:
		return "failed";
	case AG_EP_NONE:
		break;
	}
	return "none";
}

static json_t *status_json(const struct ag_supervisor *s)
{
	json_t *o = json_object(), *argv;
	char ts[32];
	size_t i;

	json_object_set_new(o, "state", json_string(state_name(s->state)));
	if (s->state == AG_EP_NONE)
		return o;
	if (s->state != AG_EP_FAILED)
		json_object_set_new(o, "pid", json_integer(s->pid));
	argv = json_array();
	for (i = 0; s->argv[i]; i++)
		json_array_append_new(argv, json_string(s->argv[i]));
	json_object_set_new(o, "argv", argv);
	ax_time_rfc3339(s->started, ts);
	json_object_set_new(o, "startedAt", json_string(ts));
	if (s->state == AG_EP_EXITED)
		json_object_set_new(o, "exitCode", json_integer(s->code));
	else if (s->state == AG_EP_SIGNALED)
		json_object_set_new(o, "signal", json_integer(s->code));
	else if (s->state == AG_EP_FAILED)
		json_object_set_new(o, "error", json_string(s->error));
	if (s->state != AG_EP_RUNNING) {
		ax_time_rfc3339(s->finished, ts);
		json_object_set_new(o, "finishedAt", json_string(ts));
	}
	return o;
}

static int write_status(const struct ag_supervisor *s, ax_error *err)
{
	json_t *o = status_json(s);
	char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	size_t len;
	int rc;

	json_decref(o);
	if (!text)
		return ax_fail(err, AX_CODE_IO, "out of memory");
	len = strlen(text);
	text[len] = '\n';	/* replaces the NUL; the length is passed explicitly */
	rc = ax_mkdir_parent(s->status_path, 0755, err);
	if (rc == 0)
		rc = ax_write_file_replace(s->status_path, text, len + 1, 0644, err);
	free(text);
	return rc;
}

/* The entrypoint sees the agent's environment minus its internal variables. */
static char **child_environ(void)
{
	size_t n = 0, i, j = 0;
	char **env;

	while (environ[n])
		n++;
	env = malloc((n + 1) * sizeof *env);
	if (!env)
		return NULL;
	for (i = 0; i < n; i++)
		if (strncmp(environ[i], AG_INTERNAL_ENV_PREFIX, strlen(AG_INTERNAL_ENV_PREFIX)) != 0)
			env[j++] = environ[i];
	env[j] = NULL;
	return env;
}

/* Runs in the forked child: async-signal-safe calls only. */
static void __attribute__((noreturn)) exec_child(char **argv, char **env, int out_fd, int report_fd)
{
	struct spawn_failure f = { 0, 0 };
	int fd;

	ag_child_setup();
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0)
		goto fail;
	if (fd != STDIN_FILENO) {
		dup2(fd, STDIN_FILENO);
		close(fd);
	}
	if (out_fd >= 0)
		dup2(out_fd, STDERR_FILENO);
	dup2(STDERR_FILENO, STDOUT_FILENO);
	ag_child_close_fds(report_fd);
	f.stage = 1;
	execvpe(argv[0], argv, env);
fail:
	f.err = errno;
	if (write(report_fd, &f, sizeof f) < 0) {
		/* The parent then sees EOF and a quick exit 127. */
	}
	_exit(127);
}

static void set_failed(struct ag_supervisor *s, const struct spawn_failure *f)
{
	s->state = AG_EP_FAILED;
	s->finished = time(NULL);
	if (f->stage == 0)
		snprintf(s->error, sizeof s->error, "open /dev/null: %s", strerror(f->err));
	else
		snprintf(s->error, sizeof s->error, "exec %s: %s", s->argv[0], strerror(f->err));
}

static void spawn(struct ag_supervisor *s)
{
	struct spawn_failure f = { 1, 0 };
	char **env = child_environ();
	int pipefd[2];

	s->started = time(NULL);
	if (!env || pipe2(pipefd, O_CLOEXEC) < 0) {
		f.err = env ? errno : ENOMEM;
		free(env);
		set_failed(s, &f);
		return;
	}
	s->pid = fork();
	if (s->pid == 0)
		exec_child(s->argv, env, s->out_fd, pipefd[1]);
	f.err = errno;
	close(pipefd[1]);
	free(env);
	if (s->pid < 0) {
		close(pipefd[0]);
		s->pid = 0;
		set_failed(s, &f);
		return;
	}
	/* Also from this side, so the group exists before anyone signals it. */
	setpgid(s->pid, s->pid);
	s->exec_fd = pipefd[0];
}

void ag_supervise_start(struct ag_supervisor *s, const char *status_path, char **argv, int out_fd)
{
	memset(s, 0, sizeof *s);
	s->status_path = status_path;
	s->exec_fd = -1;
	s->out_fd = out_fd;
	if (argv && argv[0]) {
		s->argv = argv;
		spawn(s);
	}
}

int ag_supervise_confirm(struct ag_supervisor *s, ax_error *err)
{
	if (s->exec_fd >= 0) {
		struct spawn_failure f;
		ssize_t n;

		do
			n = read(s->exec_fd, &f, sizeof f);
		while (n < 0 && errno == EINTR);
		close(s->exec_fd);
		s->exec_fd = -1;
		if (n == (ssize_t)sizeof f)
			set_failed(s, &f);
		else
			s->state = AG_EP_RUNNING;
	}
	if (!s->argv)
		ag_log("no entrypoint");
	else if (s->state == AG_EP_RUNNING)
		ag_log("entrypoint started: pid %d: %s", (int)s->pid, s->argv[0]);
	else
		ag_log("entrypoint failed: %s", s->error);
	return write_status(s, err);
}

int ag_supervise_child_exited(struct ag_supervisor *s, pid_t pid, int status, ax_error *err)
{
	if (s->pid == 0 || pid != s->pid)
		return 0;
	/* A child that failed to exec already has its state; its exit 127 adds nothing. */
	if (s->state != AG_EP_RUNNING)
		return 1;
	s->finished = time(NULL);
	if (WIFSIGNALED(status)) {
		s->state = AG_EP_SIGNALED;
		s->code = WTERMSIG(status);
		ag_log("entrypoint pid %d killed by signal %d (%s)", (int)pid, s->code, strsignal(s->code));
	} else {
		s->state = AG_EP_EXITED;
		s->code = WEXITSTATUS(status);
		ag_log("entrypoint pid %d exited with status %d", (int)pid, s->code);
	}
	return write_status(s, err) < 0 ? -1 : 1;
}

int ag_supervise_signal(const struct ag_supervisor *s, int sig)
{
	if (s->pid <= 0)
		return -1;
	return kill(-s->pid, sig);
}
