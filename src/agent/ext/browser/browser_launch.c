#include "agent/ext/browser/browser_launch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent/execd/execd_rmtree.h"
#include "lib/fs.h"
#include "agent/core/reaper.h"
#include "agent/core/proc_spawn.h"
#include "lib/timeutil.h"

#define CHROMIUM_ENV "ALLOX_AGENT_CHROMIUM"

/* The Chromium to run: $ALLOX_AGENT_CHROMIUM (a path, or a name looked up on
 * PATH), else chromium on PATH. Looked up before fork: the child may only
 * make async-signal-safe calls. */
static int find_chromium(char *out, size_t size)
{
	const char *name = getenv(CHROMIUM_ENV), *path = getenv("PATH"), *p, *colon;

	if (!name || !*name)
		name = "chromium";
	if (strchr(name, '/')) {
		snprintf(out, size, "%s", name);
		return access(out, X_OK);
	}
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p; p = *colon ? colon + 1 : colon) {
		colon = strchrnul(p, ':');
		if (snprintf(out, size, "%.*s/%s", (int)(colon - p), colon > p ? p : ".", name) < (int)size &&
		    access(out, X_OK) == 0)
			return 0;
	}
	return -1;
}

/* Profiles no Chromium uses any more: a sandbox has one agent, whose
 * Chromium is stopped before a new one starts, so any profile found here is
 * a leftover (a checkpoint taken while Chromium ran carries its profile
 * into the sandboxes restored from it). */
static void remove_stale_profiles(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		return;
	while ((d = readdir(dp)))
		if (strncmp(d->d_name, "profile-", 8) == 0 &&
		    snprintf(path, sizeof path, "%s/%s", dir, d->d_name) < (int)sizeof path)
			ag_rmtree(path);
	closedir(dp);
}

/* A fresh, empty profile directory: $HOME/.cache/allox-browser/profile-XXXXXX. */
static int make_profile(struct bl_proc *p, struct ag_error *err)
{
	const char *home = getenv("HOME");
	char dir[PATH_MAX];
	ax_error e;

	if (!home || !*home)
		home = "/tmp";
	snprintf(dir, sizeof dir, "%s/.cache/allox-browser", home);
	if (ax_mkdir_p(dir, 0700, &e) < 0)
		return ag_fail(err, 500, "browser profile: %s", e.message);
	remove_stale_profiles(dir);
	if (snprintf(p->profile, sizeof p->profile, "%s/profile-XXXXXX", dir) >= (int)sizeof p->profile ||
	    !mkdtemp(p->profile)) {
		p->profile[0] = '\0';
		return ag_fail(err, 500, "browser profile under %s: %s", dir, strerror(errno));
	}
	return 0;
}

/* A TMPDIR of its own: Chromium keeps its singleton socket in a directory
 * there that it never removes when killed, so bl_stop removes it. Short, as
 * the socket's path must fit in sun_path (108 bytes). */
static int make_tmpdir(struct bl_proc *p, struct ag_error *err)
{
	const char *base = getenv("TMPDIR");

	if (!base || !*base || strlen(base) > 24)
		base = "/tmp";
	snprintf(p->tmpdir, sizeof p->tmpdir, "%s/allox-chromium.XXXXXX", base);
	if (!mkdtemp(p->tmpdir)) {
		ag_fail(err, 500, "browser temporary directory %s: %s", p->tmpdir, strerror(errno));
		p->tmpdir[0] = '\0';
		return -1;
	}
	return 0;
}

/* In the forked child: async-signal-safe calls only; a failure is reported
 * as an errno through REPORT_FD (close-on-exec: silence means exec worked). */
static void __attribute__((noreturn)) run_chromium(const char *program, char *const *argv, char *const *env,
						   int log_fd, int report_fd)
{
	int in, e;

	ag_child_setup();
	in = open("/dev/null", O_RDONLY);
	if (in >= 0 && dup2(in, STDIN_FILENO) >= 0 && dup2(log_fd, STDOUT_FILENO) >= 0 &&
	    dup2(log_fd, STDERR_FILENO) >= 0) {
		ag_child_close_fds(report_fd);
		execve(program, argv, env);
	}
	e = errno;
	if (write(report_fd, &e, sizeof e) < 0) {
		/* Nothing more to say: the parent sees a quick exit 127. */
	}
	_exit(127);
}

struct chromium_exec {
	const char *program;
	char *const *argv, *const *env;
	int log_fd;
};

static void chromium_main(void *arg, int report_fd)
{
	const struct chromium_exec *x = arg;

	run_chromium(x->program, x->argv, x->env, x->log_fd, report_fd);
}

static int spawn(struct ag_reaper *reaper, const char *program, char *const *argv, const char *log_path,
		 struct bl_proc *p, struct ag_error *err)
{
	char tmpdir[sizeof p->tmpdir + 8];
	const char *extra[] = { tmpdir, NULL }, *step;
	struct chromium_exec x = { .program = program, .argv = argv, .log_fd = -1 };
	char **env;
	int e, rc = -1;

	snprintf(tmpdir, sizeof tmpdir, "TMPDIR=%s", p->tmpdir);
	env = ag_child_environ(extra);
	x.env = env;
	x.log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (!env || x.log_fd < 0) {
		ag_fail(err, 500, "%s: %s", !env ? "environment" : log_path, strerror(errno));
		goto out;
	}
	e = ag_child_fork(reaper, chromium_main, &x, &p->pid, &p->pidfd, &step);
	if (e && !p->pid)
		ag_fail(err, 500, "%s: %s", step, strerror(e));
	else if (e)
		ag_fail(err, 503, "%s %.200s: %s", step, program, strerror(e));
	else
		rc = 0;
out:
	if (x.log_fd >= 0)
		close(x.log_fd);
	free(env);
	return rc;
}

/* DevToolsActivePort: the port, a newline, the browser's WebSocket path.
 * Chromium writes it once the endpoint listens. 1 once read, 0 not yet. */
static int read_active_port(struct bl_proc *p)
{
	char path[PATH_MAX + 32], *text = NULL, *nl;
	size_t len;
	long port;
	ax_error e;
	int rc = 0;

	snprintf(path, sizeof path, "%s/DevToolsActivePort", p->profile);
	if (ax_read_file(path, &text, &len, &e) != 0)
		return 0;
	port = strtol(text, &nl, 10);
	if (port > 0 && port < 65536 && *nl == '\n' && strncmp(nl + 1, "/devtools/browser/", 18) == 0) {
		nl[1 + strcspn(nl + 1, "\r\n")] = '\0';
		if (snprintf(p->ws_path, sizeof p->ws_path, "%s", nl + 1) < (int)sizeof p->ws_path) {
			p->port = (int)port;
			rc = 1;
		}
	}
	free(text);
	return rc;
}

/* The last line of Chromium's log that says something, for error messages. */
static void log_tail(const char *log_path, char *out, size_t size)
{
	char *text = NULL, *line, *best = NULL;
	size_t len;
	ax_error e;

	out[0] = '\0';
	if (ax_read_file(log_path, &text, &len, &e) != 0)
		return;
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		if (!strstr(line, "dbus") && !strstr(line, "unexpected operator"))
			best = line;
	if (best)
		snprintf(out, size, ": %.300s", best);
	free(text);
}

int bl_start(struct ag_reaper *reaper, int width, int height, int timeout_ms, struct bl_proc *p,
	     struct ag_error *err)
{
	char program[PATH_MAX], log_path[PATH_MAX + 16], profile_arg[PATH_MAX + 32], size_arg[64], tail[320];
	const char *wanted = getenv(CHROMIUM_ENV);
	long long deadline;

	memset(p, 0, sizeof *p);
	p->pidfd = -1;
	if (find_chromium(program, sizeof program) < 0)
		return ag_fail(err, 503,
			       "Chromium is not installed in the sandbox (%s): install the Debian package " BL_PACKAGE
			       " (apt-get install " BL_PACKAGE ")",
			       wanted && *wanted ? wanted : "chromium");
	if (make_profile(p, err) < 0 || make_tmpdir(p, err) < 0) {
		bl_stop(reaper, p, 0);
		return -1;
	}
	snprintf(log_path, sizeof log_path, "%s/chromium.log", p->profile);
	snprintf(profile_arg, sizeof profile_arg, "--user-data-dir=%s", p->profile);
	snprintf(size_arg, sizeof size_arg, "--window-size=%d,%d", width, height);
	{
		char *const argv[] = { program, "--headless", "--no-sandbox", "--disable-gpu",
				       "--disable-background-networking", "--disable-component-update", "--disable-sync",
				       "--no-first-run", "--no-default-browser-check", "--hide-scrollbars",
				       "--disable-breakpad", "--disable-crash-reporter",
				       "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", profile_arg,
				       size_arg, "about:blank", NULL };

		if (spawn(reaper, program, argv, log_path, p, err) < 0) {
			bl_stop(reaper, p, 0);
			return -1;
		}
	}
	deadline = ax_mono_ms() + timeout_ms;
	while (!read_active_port(p)) {
		if (!bl_running(p)) {
			log_tail(log_path, tail, sizeof tail);
			bl_stop(reaper, p, 0);
			return ag_fail(err, 503, "Chromium (%s) exited at start%s", program, tail);
		}
		if (ax_mono_ms() > deadline) {
			bl_stop(reaper, p, 0);
			return ag_fail(err, 503, "Chromium (%s) did not open its DevTools port within %d s", program,
				       timeout_ms / 1000);
		}
		poll(NULL, 0, 20);
	}
	return 0;
}

bool bl_running(const struct bl_proc *p)
{
	struct pollfd pfd = { .fd = p->pidfd, .events = POLLIN };

	return p->pid > 0 && p->pidfd >= 0 && poll(&pfd, 1, 0) == 0;
}

static bool ended_within(const struct bl_proc *p, int timeout_ms)
{
	struct pollfd pfd = { .fd = p->pidfd, .events = POLLIN };
	int n;

	if (p->pidfd < 0)
		return true;
	do
		n = poll(&pfd, 1, timeout_ms);
	while (n < 0 && errno == EINTR);
	return n > 0;
}

static void signal_group(const struct bl_proc *p, int sig)
{
	/* Never kill(-0) or kill(-1): that would hit the agent or everything. */
	if (p->pid > 1 && kill(-p->pid, sig) < 0 && p->pidfd >= 0)
		pidfd_send_signal(p->pidfd, sig, NULL, 0);
}

void bl_stop(struct ag_reaper *reaper, struct bl_proc *p, int grace_ms)
{
	int status;

	if (p->pid > 0) {
		if (!ended_within(p, 0)) {
			signal_group(p, SIGTERM);
			if (!ended_within(p, grace_ms)) {
				signal_group(p, SIGKILL);
				ended_within(p, 1000);
			}
		}
		/* Renderers and helpers left in its group go too. */
		signal_group(p, SIGKILL);
		if (ag_reaper_wait(reaper, p->pid, &status, 0) != 0)
			ag_reaper_forget(reaper, p->pid);	/* the main loop reaps it as an orphan */
	}
	if (p->pidfd >= 0)
		close(p->pidfd);
	if (p->profile[0])
		ag_rmtree(p->profile);
	if (p->tmpdir[0])
		ag_rmtree(p->tmpdir);
	p->tmpdir[0] = '\0';
	p->pid = 0;
	p->pidfd = -1;
	p->profile[0] = '\0';
	p->port = 0;
}
