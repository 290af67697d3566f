#include "agent/core/proc_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/core/netwait.h"
#include "agent/core/reaper.h"
#include "agent/core/supervise.h"

/* A command waits at most this long for the sandbox's network (netwait.h). */
#define NET_WAIT_MS 5000

extern char **environ;

static size_t key_len(const char *kv)
{
	const char *eq = strchr(kv, '=');

	return eq ? (size_t)(eq - kv) : strlen(kv);
}

/* Does EXTRA set the variable KV sets? Then EXTRA's value wins. */
static int overridden(const char *kv, const char *const *extra)
{
	size_t n = key_len(kv);

	for (; extra && *extra; extra++)
		if (key_len(*extra) == n && strncmp(*extra, kv, n) == 0)
			return 1;
	return 0;
}

/* The agent's environment minus its internal variables, then EXTRA. The
 * strings are borrowed; only the array is allocated. */
static char **child_environ(const char *const *extra)
{
	size_t n = 0, m = 0, i, j = 0;
	char **env;

	while (environ[n])
		n++;
	while (extra && extra[m])
		m++;
	env = malloc((n + m + 1) * sizeof *env);
	if (!env)
		return NULL;
	for (i = 0; i < n; i++) {
		if (strncmp(environ[i], AG_INTERNAL_ENV_PREFIX, strlen(AG_INTERNAL_ENV_PREFIX)) == 0)
			continue;
		if (!overridden(environ[i], extra))
			env[j++] = environ[i];
	}
	/* A request may list a name twice; the last one wins, as in a shell. */
	for (i = 0; i < m; i++)
		if (!overridden(extra[i], extra + i + 1) && strchr(extra[i], '='))
			env[j++] = (char *)extra[i];
	env[j] = NULL;
	return env;
}

static const char *default_cwd(void)
{
	const char *home = getenv("HOME");

	return home && *home ? home : "/";
}

static int check_cwd(const char *cwd, ax_error *err)
{
	struct stat st;

	if (stat(cwd, &st) < 0)
		return ax_fail(err, AX_CODE_CWD, "working directory %s: %s", cwd, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return ax_fail(err, AX_CODE_CWD, "working directory %s: %s", cwd, strerror(ENOTDIR));
	return 0;
}

/* What the child reports through a CLOEXEC pipe when it cannot run. */
struct spawn_failure {
	int stage;
	int err;
};

enum { STAGE_SETUP, STAGE_CHDIR, STAGE_EXEC, STAGE_SETGROUPS, STAGE_SETGID, STAGE_SETUID };

/* What the forked child needs, all prepared before fork. */
struct child_args {
	const char *command;
	const char *cwd;
	char **env;
	const struct ag_ident *ident;   /* NULL: stay who the agent is */
	int out_w, err_w, report_fd;
};

void ag_child_setup(void)
{
	struct sigaction dfl;
	sigset_t none;

	/* A group of its own lets a timeout or an interrupt reach everything
	 * the child starts. */
	setpgid(0, 0);
	/* Undo what the agent changed for itself: blocked signals and the
	 * ignored SIGPIPE would otherwise survive exec. */
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGPIPE, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

void ag_child_close_fds(int keep_fd)
{
	int fd;

	/* Nothing of the agent's (listening socket, signalfd, other commands'
	 * pipes) may leak into the child, whatever a future change forgets to
	 * mark CLOEXEC. */
	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
		for (fd = 3; fd < 1024; fd++)
			if (fd != keep_fd)
				close(fd);
}

/* Take IDENT's groups, gid and uid, in that order: once the uid is not 0
 * the others can no longer be changed. Sets F's stage for the step that
 * failed. */
static int switch_ident(const struct ag_ident *ident, struct spawn_failure *f)
{
	f->stage = STAGE_SETGROUPS;
	if (setgroups(ident->ngroups, ident->groups) < 0)
		return -1;
	f->stage = STAGE_SETGID;
	if (setgid(ident->gid) < 0)
		return -1;
	f->stage = STAGE_SETUID;
	return setuid(ident->uid);
}

/* Runs in the forked child: async-signal-safe calls only. fork rather than
 * posix_spawn because <spawn.h> is shadowed by this module's own header on
 * the agent's include path. */
static void __attribute__((noreturn)) exec_child(const struct child_args *a)
{
	char *argv[] = { "sh", "-c", (char *)a->command, NULL };
	struct spawn_failure f = { STAGE_SETUP, 0 };
	int fd;

	ag_child_setup();
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0 || dup2(fd, STDIN_FILENO) < 0 || dup2(a->out_w, STDOUT_FILENO) < 0 ||
	    dup2(a->err_w, STDERR_FILENO) < 0)
		goto fail;
	/* Before chdir, so the directory is entered with the user's rights. */
	if (a->ident && switch_ident(a->ident, &f) < 0)
		goto fail;
	f.stage = STAGE_CHDIR;
	if (chdir(a->cwd) < 0)
		goto fail;
	ag_child_close_fds(a->report_fd);
	f.stage = STAGE_EXEC;
	execve("/bin/sh", argv, a->env);
fail:
	f.err = errno;
	if (write(a->report_fd, &f, sizeof f) < 0) {
		/* The parent then sees EOF and the command's exit 127. */
	}
	_exit(127);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Fork with the reaper locked, so the main loop cannot reap the child before
 * it is watched. Returns the pid or -1 with errno set. */
static pid_t fork_watched(const struct ag_ctx *ctx, const struct child_args *a)
{
	pid_t pid;
	int e;

	ag_reaper_lock(ctx->reaper);
	pid = fork();
	if (pid == 0)
		exec_child(a);
	e = errno;
	if (pid > 0 && ag_reaper_watch_locked(ctx->reaper, pid) < 0) {
		/* Unwatched, its status would be lost: better no command at all. */
		kill(pid, SIGKILL);
		pid = -1;
		e = ENOMEM;
	}
	ag_reaper_unlock(ctx->reaper);
	if (pid > 0)
		setpgid(pid, pid);	/* also here, so the group exists before anyone signals it */
	errno = e;
	return pid;
}

/* Did the child fail before exec? Then it has exited (127) and *F says why. */
static int child_failed(int report_r, struct spawn_failure *f)
{
	ssize_t n;

	do
		n = read(report_r, f, sizeof *f);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof *f;
}

static const char *stage_name(int stage)
{
	switch (stage) {
	case STAGE_EXEC:
		return "exec /bin/sh";
	case STAGE_SETGROUPS:
		return "setgroups";
	case STAGE_SETGID:
		return "setgid";
	case STAGE_SETUID:
		return "setuid";
	default:
		return "command set-up";
	}
}

/* Why the child could not run, in ERR. */
static void failure_error(const struct spawn_failure *f, const struct child_args *a, ax_error *err)
{
	if (f->stage == STAGE_CHDIR)
		ax_fail(err, AX_CODE_CWD, "working directory %s: %s", a->cwd, strerror(f->err));
	else if (f->stage >= STAGE_SETGROUPS && a->ident)
		ax_fail(err, AX_CODE_IDENT, "cannot run as uid %u gid %u: %s: %s", (unsigned)a->ident->uid,
			(unsigned)a->ident->gid, stage_name(f->stage), strerror(f->err));
	else
		ax_fail(err, AX_CODE_SPAWN, "%s: %s", stage_name(f->stage), strerror(f->err));
}

int ag_proc_start(const struct ag_ctx *ctx, const char *command, const char *cwd, const char *const *env,
		  bool merge_stderr, struct ag_proc *p, ax_error *err)
{
	return ag_proc_start_as(ctx, command, cwd, env, merge_stderr, NULL, p, err);
}

int ag_proc_start_as(const struct ag_ctx *ctx, const char *command, const char *cwd, const char *const *env,
		     bool merge_stderr, const struct ag_ident *ident, struct ag_proc *p, ax_error *err)
{
	int out[2] = { -1, -1 }, errp[2] = { -1, -1 }, rep[2] = { -1, -1 };
	struct child_args a = { command, NULL, NULL, ident, -1, -1, -1 };
	struct spawn_failure f;
	pid_t pid;

	p->pid = 0;
	p->out_fd = p->err_fd = -1;
	/* The first command after a create may come before the sandbox's
	 * network is up: it waits for it (netwait.h), within reason. */
	ag_netwait(ctx->net, NET_WAIT_MS);
	if (!cwd || !*cwd)
		cwd = default_cwd();
	if (check_cwd(cwd, err) < 0)
		return -1;
	a.cwd = cwd;
	if (pipe2(out, O_CLOEXEC) < 0 || (!merge_stderr && pipe2(errp, O_CLOEXEC) < 0) ||
	    pipe2(rep, O_CLOEXEC) < 0) {
		ax_fail(err, AX_CODE_SPAWN, "pipe: %s", strerror(errno));
		goto fail;
	}
	a.env = child_environ(env);
	if (!a.env) {
		ax_fail(err, AX_CODE_NOMEM, "out of memory");
		goto fail;
	}
	a.out_w = out[1];
	a.err_w = merge_stderr ? out[1] : errp[1];
	a.report_fd = rep[1];
	pid = fork_watched(ctx, &a);
	if (pid < 0) {
		ax_fail(err, AX_CODE_SPAWN, "fork: %s", strerror(errno));
		goto fail;
	}
	free(a.env);
	a.env = NULL;
	/* Only the child may hold the write ends, or EOF would never come. */
	close_fd(&out[1]);
	close_fd(&errp[1]);
	close_fd(&rep[1]);
	p->pid = pid;
	if (child_failed(rep[0], &f)) {
		ag_proc_wait(ctx, p, -1, NULL);
		p->pid = 0;
		failure_error(&f, &a, err);
		goto fail;
	}
	close_fd(&rep[0]);
	p->out_fd = out[0];
	p->err_fd = errp[0];
	return 0;
fail:
	free(a.env);
	close_fd(&out[0]);
	close_fd(&out[1]);
	close_fd(&errp[0]);
	close_fd(&errp[1]);
	close_fd(&rep[0]);
	close_fd(&rep[1]);
	return -1;
}

/* The reaper forgets the pid once it hands out the status, so only the first
 * successful wait reports it; later ones return -1. After that the group id
 * may be reused: do not ag_proc_kill a command that has been waited for. */
int ag_proc_wait(const struct ag_ctx *ctx, struct ag_proc *p, int timeout_ms, int *status)
{
	int st = 0, rc = ag_reaper_wait(ctx->reaper, p->pid, &st, timeout_ms);

	if (rc < 0)
		return -1;
	if (rc == 1)
		return 0;
	if (status)
		*status = st;
	return 1;
}

void ag_proc_kill(const struct ag_proc *p, int sig)
{
	/* Never kill(-0) or kill(-1): that would hit the agent or everything. */
	if (p->pid > 1)
		kill(-p->pid, sig);
}

void ag_proc_close(struct ag_proc *p)
{
	close_fd(&p->out_fd);
	close_fd(&p->err_fd);
}

char **ag_child_environ(const char *const *extra)
{
	return child_environ(extra);
}

char *ag_find_program(const char *name, char *const *env)
{
	const char *path = "/usr/local/bin:/usr/bin:/bin", *p, *colon;
	char buf[4096];
	size_t i;

	if (!name)
		return NULL;
	if (strchr(name, '/'))
		return strdup(name);
	for (i = 0; env && env[i]; i++)
		if (strncmp(env[i], "PATH=", 5) == 0)
			path = env[i] + 5;
	for (p = path; *p; p = *colon ? colon + 1 : colon) {
		colon = strchrnul(p, ':');
		if (snprintf(buf, sizeof buf, "%.*s/%s", (int)(colon - p), colon > p ? p : ".", name) <
			    (int)sizeof buf &&
		    access(buf, X_OK) == 0)
			return strdup(buf);
	}
	return NULL;
}

int ag_child_fork(struct ag_reaper *reaper, void (*child_main)(void *arg, int report_fd), void *arg, pid_t *pid,
		  int *pidfd, const char **step)
{
	int report[2], e;
	ssize_t n;
	pid_t child;

	*pid = 0;
	*pidfd = -1;
	*step = "fork";
	if (pipe2(report, O_CLOEXEC) < 0)
		return errno;
	ag_reaper_lock(reaper);
	child = fork();
	if (child == 0) {
		child_main(arg, report[1]);
		_exit(127);
	}
	e = errno;
	if (child > 0 && ag_reaper_watch_locked(reaper, child) < 0) {
		kill(child, SIGKILL);
		e = ENOMEM;
	} else if (child > 0) {
		/* While the reaper is locked the pid cannot be reaped and reused. */
		*pidfd = pidfd_open(child, 0);
		*pid = child;
		e = *pidfd < 0 ? errno : 0;
	}
	ag_reaper_unlock(reaper);
	if (child > 0)
		setpgid(child, child);	/* also here, so the group exists before anyone signals it */
	close(report[1]);
	if (!*pid) {
		close(report[0]);
		return e;
	}
	do
		n = read(report[0], &e, sizeof e);
	while (n < 0 && errno == EINTR);
	close(report[0]);
	if (n == (ssize_t)sizeof e || *pidfd < 0) {
		*step = n == (ssize_t)sizeof e ? "cannot start" : "pidfd_open";
		return e;
	}
	return 0;
}
