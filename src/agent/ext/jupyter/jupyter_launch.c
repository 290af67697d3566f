#include "agent/ext/jupyter/jupyter_launch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/fs.h"
#include "agent/core/reaper.h"
#include "agent/core/proc_spawn.h"

int jl_write_connection(const char *path, const char *ipc_prefix, const char *key, const char *kernel_name,
			struct ag_error *err)
{
	json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:s, s:s, s:s}", "transport", "ipc", "ip",
			      ipc_prefix, "shell_port", JL_SHELL, "iopub_port", JL_IOPUB, "stdin_port", JL_STDIN,
			      "control_port", JL_CONTROL, "hb_port", JL_HB, "key", key, "signature_scheme",
			      "hmac-sha256", "kernel_name", kernel_name);
	char *text = o ? json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
	ax_error e;
	int rc = 0;

	json_decref(o);
	if (!text)
		return ag_fail(err, 500, "connection file: out of memory");
	/* It holds the key: only the agent (and the kernel, its child) may read it. */
	if (ax_write_file_replace(path, text, strlen(text), 0600, &e) < 0)
		rc = ag_fail(err, 500, "connection file: %s", e.message);
	free(text);
	return rc;
}

void jl_endpoint(char *buf, size_t size, const char *ipc_prefix, enum jl_port port)
{
	snprintf(buf, size, "ipc://%s-%d", ipc_prefix, (int)port);
}

/* In the forked child: async-signal-safe calls only. Whatever fails is
 * reported as an errno through REPORT_FD (close-on-exec: silence means exec
 * worked). */
static void __attribute__((noreturn)) run_kernel(const char *program, char *const *argv, char *const *env,
						 const char *cwd, int log_fd, int report_fd)
{
	int in, e;

	ag_child_setup();
	in = open("/dev/null", O_RDONLY);
	if (in >= 0 && dup2(in, STDIN_FILENO) >= 0 && dup2(log_fd, STDOUT_FILENO) >= 0 &&
	    dup2(log_fd, STDERR_FILENO) >= 0 && chdir(cwd) == 0) {
		ag_child_close_fds(report_fd);
		execve(program, argv, env);
	}
	e = errno;
	if (write(report_fd, &e, sizeof e) < 0) {
		/* Nothing more to say: the parent sees a quick exit 127. */
	}
	_exit(127);
}

struct kernel_exec {
	const char *program, *cwd;
	char *const *argv, *const *env;
	int log_fd;
};

static void kernel_main(void *arg, int report_fd)
{
	const struct kernel_exec *x = arg;

	run_kernel(x->program, x->argv, x->env, x->cwd, x->log_fd, report_fd);
}

int jl_spawn(struct ag_reaper *reaper, char *const *argv, char *const *env, const char *cwd, const char *log_path,
	     struct jl_proc *p, struct ag_error *err)
{
	struct kernel_exec x = { .argv = argv, .env = env, .cwd = cwd };
	char *program = ag_find_program(argv[0], env);
	const char *step;
	int e;

	p->pid = 0;
	p->pidfd = -1;
	if (!program)
		return ag_fail(err, 503, "kernel program not found: %.200s", argv[0]);
	x.program = program;
	x.log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (x.log_fd < 0) {
		ag_fail(err, 500, "%s: %s", log_path, strerror(errno));
		free(program);
		return -1;
	}
	e = ag_child_fork(reaper, kernel_main, &x, &p->pid, &p->pidfd, &step);
	close(x.log_fd);
	if (e && !p->pid)
		ag_fail(err, 500, "%s: %s", step, strerror(e));
	else if (e) {
		jl_stop(reaper, p, 0);
		ag_fail(err, 500, "%s %.200s: %s", step, program, strerror(e));
	}
	free(program);
	return e ? -1 : 0;
}

int jl_ended(const struct jl_proc *p, int timeout_ms)
{
	struct pollfd pfd = { .fd = p->pidfd, .events = POLLIN };
	int n;

	if (p->pidfd < 0)
		return 1;
	do
		n = poll(&pfd, 1, timeout_ms);
	while (n < 0 && errno == EINTR);
	return n > 0;
}

void jl_signal(const struct jl_proc *p, int sig)
{
	/* Never kill(-0) or kill(-1): that would hit the agent or everything. */
	if (p->pid > 1 && kill(-p->pid, sig) < 0 && p->pidfd >= 0)
		pidfd_send_signal(p->pidfd, sig, NULL, 0);
}

static void describe(int status, char *why, size_t size)
{
	if (WIFSIGNALED(status))
		snprintf(why, size, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(why, size, "exit status %d", WEXITSTATUS(status));
}

void jl_collect(struct ag_reaper *reaper, struct jl_proc *p, int wait_ms, char *why, size_t size)
{
	int status = 0;

	snprintf(why, size, "it ended");
	if (p->pid > 0) {
		if (ag_reaper_wait(reaper, p->pid, &status, wait_ms) == 0)
			describe(status, why, size);
		else
			ag_reaper_forget(reaper, p->pid);	/* the main loop reaps it as an orphan */
	}
	if (p->pidfd >= 0)
		close(p->pidfd);
	p->pid = 0;
	p->pidfd = -1;
}

void jl_stop(struct ag_reaper *reaper, struct jl_proc *p, int grace_ms)
{
	char why[64];

	if (p->pid <= 0)
		return;
	if (!jl_ended(p, 0)) {
		jl_signal(p, SIGTERM);
		if (!jl_ended(p, grace_ms)) {
			jl_signal(p, SIGKILL);
			jl_ended(p, 1000);
		}
	}
	/* Whatever it left in its group goes too. */
	jl_signal(p, SIGKILL);
	jl_collect(reaper, p, 0, why, sizeof why);
}
