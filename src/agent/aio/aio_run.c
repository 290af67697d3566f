#include "agent/aio/aio_run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/aio/aio_output.h"
#include "agent/core/proc_spawn.h"
#include "lib/timeutil.h"

/* While the shell runs, the pump also has to notice it exiting when a
 * background job keeps the pipe open, so it polls in slices that grow
 * while the command is quiet. */
#define SLICE_MIN_MS 10
#define SLICE_MAX_MS 250
/* 16 x 64 KiB: Linux's largest default pipe buffer is 1 MiB. */
#define DRAIN_READS 16

struct aio_run {
	pthread_mutex_t lock;
	pthread_cond_t cond;        /* broadcast when the run ends */
	int refs;
	const struct ag_ctx *ctx;
	struct ag_proc proc;
	char *command, *cwd;
	/* Below, under LOCK */
	struct aio_output out;
	struct timespec last_output;
	bool ended, killed_hard, killed_req;
	enum aio_status status;
	int exit_code;
	/* The pump's own */
	bool has_hard;
	struct timespec hard;
};

static struct timespec now(void)
{
	return ax_mono_deadline(0);
}

struct timespec aio_deadline(double seconds)
{
	/* A century is "never" without overflowing time_t arithmetic. */
	if (seconds > 3e9)
		seconds = 3e9;
	if (seconds < 0)
		seconds = 0;
	return ax_mono_deadline((int64_t)(seconds * 1e3));
}

static int cmp_ts(const struct timespec *a, const struct timespec *b)
{
	if (a->tv_sec != b->tv_sec)
		return a->tv_sec < b->tv_sec ? -1 : 1;
	return (a->tv_nsec > b->tv_nsec) - (a->tv_nsec < b->tv_nsec);
}

static long long ms_until(const struct timespec *t)
{
	struct timespec n = now();
	long long ms = (long long)(t->tv_sec - n.tv_sec) * 1000 + (t->tv_nsec - n.tv_nsec) / 1000000;

	return ms < 0 ? 0 : ms + 1;
}

void aio_run_ref(struct aio_run *r)
{
	pthread_mutex_lock(&r->lock);
	r->refs++;
	pthread_mutex_unlock(&r->lock);
}

void aio_run_unref(struct aio_run *r)
{
	int left;

	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	left = --r->refs;
	pthread_mutex_unlock(&r->lock);
	if (left)
		return;
	ag_proc_close(&r->proc);
	aio_output_free(&r->out);
	pthread_cond_destroy(&r->cond);
	pthread_mutex_destroy(&r->lock);
	free(r->command);
	free(r->cwd);
	free(r);
}

/* Read what the pipe holds now, up to DRAIN_READS reads so that a writer
 * faster than us cannot keep the pump from its deadlines (once the shell
 * has exited, a pipe holds no more than that). Returns the bytes read, with
 * *EOF set once every writer has gone. */
static size_t drain(struct aio_run *r, bool *eof)
{
	char buf[64 << 10];
	size_t total = 0;
	ssize_t n;
	int reads;

	for (reads = 0; reads < DRAIN_READS; reads++) {
		n = read(r->proc.out_fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 || (n < 0 && errno != EAGAIN)) {
			*eof = true;
			break;
		}
		if (n < 0)
			break;
		pthread_mutex_lock(&r->lock);
		aio_output_append(&r->out, buf, (size_t)n);
		r->last_output = now();
		pthread_mutex_unlock(&r->lock);
		total += (size_t)n;
	}
	return total;
}

static void ended(struct aio_run *r, int rc, int status)
{
	pthread_mutex_lock(&r->lock);
	r->ended = true;
	if (r->killed_hard) {
		r->status = AIO_HARD_TIMEOUT;
		r->exit_code = AIO_EXIT_KILLED;
	} else if (r->killed_req) {
		r->status = AIO_TERMINATED;
		r->exit_code = AIO_EXIT_KILLED;
	} else {
		r->status = AIO_COMPLETED;
		/* What the shell's $? would say: 128+N for a signal. */
		r->exit_code = rc < 0 ? AIO_EXIT_KILLED
			       : WIFEXITED(status) ? WEXITSTATUS(status)
			       : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
			       : AIO_EXIT_KILLED;
	}
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

static void hard_kill_due(struct aio_run *r)
{
	struct timespec t = now();

	if (!r->has_hard || cmp_ts(&t, &r->hard) < 0)
		return;
	r->has_hard = false;
	pthread_mutex_lock(&r->lock);
	/* Before the shell is reaped, so its process group still exists. */
	if (!r->ended && !r->killed_req) {
		r->killed_hard = true;
		ag_proc_kill(&r->proc, SIGKILL);
	}
	pthread_mutex_unlock(&r->lock);
}

/* The shell ends when its process does; the pipe may stay open for longer
 * (a background job), and is read until then so that job never blocks. */
static void *pump(void *arg)
{
	struct aio_run *r = arg;
	struct pollfd pfd = { r->proc.out_fd, POLLIN, 0 };
	bool done = false, eof = false;
	long long slice = SLICE_MIN_MS, ms;
	int status = 0, rc;

	while (!done || !eof) {
		if (!eof) {
			ms = done ? -1 : slice;
			if (!done && r->has_hard && ms_until(&r->hard) < ms)
				ms = ms_until(&r->hard);
			if (poll(&pfd, 1, (int)ms) < 0 && errno != EINTR)
				eof = true;
			slice = drain(r, &eof) ? SLICE_MIN_MS : slice * 2 > SLICE_MAX_MS ? SLICE_MAX_MS : slice * 2;
		}
		if (done)
			continue;
		hard_kill_due(r);
		ms = eof ? (r->has_hard ? ms_until(&r->hard) : -1) : 0;
		rc = ag_proc_wait(r->ctx, &r->proc, (int)(ms > 1000000000 ? 1000000000 : ms), &status);
		if (rc == 0)
			continue;
		done = true;
		if (!eof)
			drain(r, &eof);	/* what the shell wrote just before it exited */
		ended(r, rc, status);
	}
	ag_proc_close(&r->proc);
	aio_run_unref(r);
	return NULL;
}

struct aio_run *aio_run_start(const struct ag_ctx *ctx, const char *command, const char *cwd,
			      double hard_timeout_s, ax_error *err)
{
	struct aio_run *r = calloc(1, sizeof *r);
	const char *home = getenv("HOME");
	pthread_attr_t ta;
	pthread_t tid;
	int e;

	if (!r || !(r->command = strdup(command)) ||
	    !(r->cwd = strdup(cwd ? cwd : home && *home ? home : "/"))) {
		if (r)
			free(r->command);
		free(r);
		ax_fail(err, AX_CODE_NOMEM, "out of memory");
		return NULL;
	}
	r->refs = 2;	/* the caller's and the pump's */
	r->ctx = ctx;
	r->proc.out_fd = r->proc.err_fd = -1;
	pthread_mutex_init(&r->lock, NULL);
	ax_mono_cond_init(&r->cond);
	if (hard_timeout_s > 0) {
		r->has_hard = true;
		r->hard = aio_deadline(hard_timeout_s);
	}
	/* One stream, as a terminal would show it: stderr lines stay in order
	 * with stdout ones. */
	if (ag_proc_start(ctx, command, cwd, NULL, true, &r->proc, err) < 0) {
		r->refs = 1;
		aio_run_unref(r);
		return NULL;
	}
	r->last_output = now();
	fcntl(r->proc.out_fd, F_SETFL, fcntl(r->proc.out_fd, F_GETFL) | O_NONBLOCK);
	pthread_attr_init(&ta);
	pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
	e = pthread_create(&tid, &ta, pump, r);
	pthread_attr_destroy(&ta);
	if (e) {
		/* Nobody would read or reap it: stop it now. */
		ag_proc_kill(&r->proc, SIGKILL);
		ag_proc_wait(ctx, &r->proc, -1, NULL);
		r->refs = 1;
		aio_run_unref(r);
		ax_fail(err, AX_CODE_SPAWN, "cannot start a thread: %s", strerror(e));
		return NULL;
	}
	return r;
}

enum aio_wait aio_run_wait(struct aio_run *r, const struct timespec *deadline, double no_change_s)
{
	struct timespec t, quiet, wake;
	enum aio_wait why;
	bool timed;

	pthread_mutex_lock(&r->lock);
	for (;;) {
		if (r->ended) {
			why = AIO_WAIT_DONE;
			break;
		}
		t = now();
		if (deadline && cmp_ts(&t, deadline) >= 0) {
			why = AIO_WAIT_DEADLINE;
			break;
		}
		timed = deadline != NULL;
		if (deadline)
			wake = *deadline;
		if (no_change_s > 0) {
			quiet = r->last_output;
			quiet.tv_sec += (time_t)no_change_s;
			if (cmp_ts(&t, &quiet) >= 0) {
				why = AIO_WAIT_NO_CHANGE;
				break;
			}
			if (!timed || cmp_ts(&quiet, &wake) < 0)
				wake = quiet;
			timed = true;
		}
		if (timed)
			pthread_cond_timedwait(&r->cond, &r->lock, &wake);
		else
			pthread_cond_wait(&r->cond, &r->lock);
	}
	pthread_mutex_unlock(&r->lock);
	return why;
}

bool aio_run_kill(struct aio_run *r)
{
	bool live;

	pthread_mutex_lock(&r->lock);
	live = !r->ended;
	if (live && !r->killed_hard) {
		r->killed_req = true;
		ag_proc_kill(&r->proc, SIGKILL);
	}
	pthread_mutex_unlock(&r->lock);
	return live;
}

int aio_run_state(struct aio_run *r, size_t limit, struct aio_run_state *s)
{
	pthread_mutex_lock(&r->lock);
	s->ended = r->ended;
	s->status = r->ended ? r->status : AIO_RUNNING;
	s->exit_code = r->exit_code;
	s->output = aio_output_render(&r->out, limit, &s->output_len);
	pthread_mutex_unlock(&r->lock);
	return s->output ? 0 : -1;
}

bool aio_run_ended(struct aio_run *r)
{
	bool e;

	pthread_mutex_lock(&r->lock);
	e = r->ended;
	pthread_mutex_unlock(&r->lock);
	return e;
}

const char *aio_run_command(const struct aio_run *r)
{
	return r->command;
}

const char *aio_run_cwd(const struct aio_run *r)
{
	return r->cwd;
}
