/* Child processes for command lines. */
#include "ui/job.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/timeutil.h"

static int add_global(ax_exec_env *e, const char *name, const char *value)
{
	char **v = realloc(e->globals, (size_t)(e->nglobals + 3) * sizeof *v);

	if (!v)
		return -1;
	e->globals = v;
	if (!(e->globals[e->nglobals] = strdup(name)))
		return -1;
	e->nglobals++;
	if (value) {
		if (!(e->globals[e->nglobals] = strdup(value)))
			return -1;
		e->nglobals++;
	}
	e->globals[e->nglobals] = NULL;
	return 0;
}

int ax_exec_env_init(ax_exec_env *e, const ax_globals *g, ax_error *err)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
	int rc = 0;

	memset(e, 0, sizeof *e);
	if (n <= 0)
		return ax_fail(err, AX_CODE_IO, "cannot find this executable: %s", strerror(errno));
	path[n] = '\0';
	e->self = strdup(path);
	e->globals = calloc(1, sizeof *e->globals);
	if (!e->self || !e->globals)
		rc = -1;
	if (g && g->profile)
		rc |= add_global(e, "--profile", g->profile);
	if (g && g->config_path)
		rc |= add_global(e, "--config", g->config_path);
	if (g && g->flags.domain)
		rc |= add_global(e, "--domain", g->flags.domain);
	if (g && g->flags.api_key)
		rc |= add_global(e, "--api-key", g->flags.api_key);
	if (g && g->flags.protocol)
		rc |= add_global(e, "--protocol", g->flags.protocol);
	if (g && g->flags.request_timeout)
		rc |= add_global(e, "--request-timeout", g->flags.request_timeout);
	if (g && g->flags.use_server_proxy >= 0)
		rc |= add_global(e, g->flags.use_server_proxy ? "--use-server-proxy" : "--no-use-server-proxy", NULL);
	if (g && g->verbose)
		rc |= add_global(e, "--verbose", NULL);
	if (g && g->flags.no_color)
		rc |= add_global(e, "--no-color", NULL);
	if (rc) {
		ax_exec_env_free(e);
		return ax_fail(err, AX_CODE_IO, "out of memory");
	}
	return 0;
}

void ax_exec_env_free(ax_exec_env *e)
{
	int i;

	for (i = 0; i < e->nglobals; i++)
		free(e->globals[i]);
	free(e->globals);
	free(e->self);
	memset(e, 0, sizeof *e);
}

/* In the child: signals as a fresh process has them, then exec. */
static void child_exec(const ax_exec_env *e, char *const *words, int n, int out_fd, const char *columns)
{
	static const int sigs[] = { SIGINT, SIGQUIT, SIGTERM, SIGWINCH, SIGTSTP, SIGTTIN, SIGTTOU };
	char **argv = calloc((size_t)e->nglobals + (size_t)n + 2, sizeof *argv);
	sigset_t none;
	size_t i;
	int k = 0, null_fd = open("/dev/null", O_RDONLY);

	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (null_fd >= 0) {
		dup2(null_fd, STDIN_FILENO);
		if (null_fd > 2)
			close(null_fd);
	}
	if (out_fd >= 0) {
		dup2(out_fd, STDOUT_FILENO);
		dup2(out_fd, STDERR_FILENO);
		if (out_fd > 2)
			close(out_fd);
	}
	if (columns)
		setenv("COLUMNS", columns, 1);
	if (!argv)
		_exit(127);
	argv[k++] = (char *)"allox-cli";
	for (i = 0; i < (size_t)e->nglobals; i++)
		argv[k++] = e->globals[i];
	for (i = 0; i < (size_t)n; i++)
		argv[k++] = words[i];
	argv[k] = NULL;
	execv(e->self, argv);
	dprintf(STDERR_FILENO, "Error: cannot run %s: %s\n", e->self, strerror(errno));
	_exit(127);
}

int ax_job_start(const ax_exec_env *e, char *const *words, int n, bool capture, const char *columns,
		 ax_job *job, ax_error *err)
{
	int fds[2] = { -1, -1 };
	pid_t pid;

	memset(job, 0, sizeof *job);
	job->fd = -1;
	if (capture && pipe2(fds, O_CLOEXEC) < 0)
		return ax_fail(err, AX_CODE_IO, "cannot create a pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int saved = errno;

		if (capture) {
			close(fds[0]);
			close(fds[1]);
		}
		return ax_fail(err, AX_CODE_IO, "cannot start a process: %s", strerror(saved));
	}
	if (pid == 0)
		child_exec(e, words, n, capture ? fds[1] : -1, columns);
	job->started = ax_mono_s();
	job->pid = pid;
	if (capture) {
		close(fds[1]);
		job->fd = fds[0];
		fcntl(job->fd, F_SETFL, fcntl(job->fd, F_GETFL) | O_NONBLOCK);
	}
	return 0;
}

int ax_job_reap(ax_job *job, bool block, int *status)
{
	int ws;
	pid_t r;

	if (!job->pid)
		return 1;
	do
		r = waitpid(job->pid, &ws, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return 0;
	if (r < 0)
		*status = AX_EXIT_FAILURE;
	else if (WIFEXITED(ws))
		*status = WEXITSTATUS(ws);
	else
		*status = 128 + WTERMSIG(ws);
	job->pid = 0;
	if (job->fd >= 0) {
		close(job->fd);
		job->fd = -1;
	}
	return 1;
}

double ax_job_seconds(const ax_job *job)
{
	return ax_mono_s() - job->started;
}
