#include "agent/execd/execd_background.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/execd/execd_http.h"
#include "agent/execd/execd_proc.h"
#include "agent/core/reaper.h"
#include "lib/timeutil.h"

/* The pump needs little: a read buffer and a few frames. */
#define PUMP_STACK (128 * 1024)
#define PUMP_CHUNK 8192
#define REAP_WAIT_MS 10000

struct pump {
	const struct ag_ctx *ctx;
	struct ag_proc proc;
	struct ag_cmd *cmd;
	int log_fd;
	int64_t deadline;
};

/* An unlinked file: it goes away with its last descriptor, never lingers.
 * O_APPEND because log readers share the file description: a reader that
 * moved the offset must not make the pump overwrite output. */
static int open_log(ax_error *err)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_APPEND | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	/* Not every file system has O_TMPFILE. */
	snprintf(path, sizeof path, "%s/allox-command-XXXXXX", dir);
	fd = mkostemp(path, O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return ax_fail(err, AX_CODE_LOG, "cannot create a log file in %s: %s", dir, strerror(errno));
	unlink(path);
	return fd;
}

static void write_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;	/* disk full: the log loses output, the command goes on */
		buf += w;
		n -= (size_t)w;
	}
}

static void record_exit(struct pump *p, int status)
{
	int code = ag_exit_code(status);
	char text[64];

	ag_exit_text(status, text, sizeof text);
	ag_cmd_finish(p->cmd, code, code == 0 ? NULL : text);
}

static void *pump_run(void *arg)
{
	struct pump *p = arg;
	struct ag_watch w;
	char buf[PUMP_CHUNK];
	bool ready[2], recorded = false, killed = false;

	ag_watch_init(&w, p->ctx, &p->proc);
	/* Until it has exited and its output (and any child's) has ended. */
	while (!w.exited || p->proc.out_fd >= 0) {
		int64_t now = ax_mono_ms();
		int wait = -1;

		if (p->deadline && !w.exited && !killed) {
			if (now >= p->deadline) {
				ag_proc_kill(&p->proc, SIGKILL);
				killed = true;
			} else {
				wait = (int)(p->deadline - now);
			}
		}
		if (ag_watch_poll(&w, wait, ready) < 0)
			break;
		if (ready[0]) {
			ssize_t n = read(p->proc.out_fd, buf, sizeof buf);

			if (n > 0)
				write_all(p->log_fd, buf, (size_t)n);
			else if (n == 0 || errno != EINTR)
				ag_proc_close(&p->proc);
		}
		if (w.exited && !recorded) {
			record_exit(p, w.status);
			recorded = true;
		}
	}
	if (!recorded) {
		/* poll failed: never leave a command behind unwatched. */
		ag_proc_kill(&p->proc, SIGKILL);
		ag_watch_reap(&w, REAP_WAIT_MS);
		if (!w.exited)
			ag_reaper_forget(p->ctx->reaper, p->proc.pid);
		record_exit(p, w.status);
	}
	ag_watch_close(&w);
	ag_proc_close(&p->proc);
	close(p->log_fd);
	ag_cmd_put(p->cmd);
	free(p);
	return NULL;
}

static int start_thread(struct pump *p, ax_error *err)
{
	pthread_attr_t attr;
	pthread_t t;
	int rc;

	if (pthread_attr_init(&attr) != 0)
		return ax_fail(err, AX_CODE_THREAD, "cannot start a thread");
	pthread_attr_setstacksize(&attr, PUMP_STACK);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&t, &attr, pump_run, p);
	pthread_attr_destroy(&attr);
	if (rc != 0)
		return ax_fail(err, AX_CODE_THREAD, "cannot start a thread: %s", strerror(rc));
	return 0;
}

int ag_background_start(const struct ag_ctx *ctx, struct ag_cmd *cmd, const char *command, const char *cwd,
			const char *const *env, const struct ag_ident *ident, int64_t timeout_ms, ax_error *err)
{
	struct pump *p = calloc(1, sizeof *p);
	int log_fd;

	if (!p)
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	log_fd = open_log(err);
	if (log_fd < 0)
		goto fail;
	p->log_fd = fcntl(log_fd, F_DUPFD_CLOEXEC, 0);
	if (p->log_fd < 0) {
		ax_fail(err, AX_CODE_LOG, "dup: %s", strerror(errno));
		close(log_fd);
		goto fail;
	}
	ag_cmd_set_log(cmd, log_fd);
	if (ag_proc_start_as(ctx, command, cwd, env, true, ident, &p->proc, err) < 0)
		goto fail_log;
	p->ctx = ctx;
	p->cmd = cmd;
	p->deadline = timeout_ms > 0 ? ax_mono_ms() + timeout_ms : 0;
	ag_cmd_set_pid(cmd, p->proc.pid);
	if (start_thread(p, err) < 0) {
		ag_proc_kill(&p->proc, SIGKILL);
		if (ag_proc_wait(ctx, &p->proc, REAP_WAIT_MS, NULL) != 1)
			ag_reaper_forget(ctx->reaper, p->proc.pid);
		ag_proc_close(&p->proc);
		goto fail_log;
	}
	return 0;
fail_log:
	close(p->log_fd);
fail:
	free(p);
	return -1;
}
