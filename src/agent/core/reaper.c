#include "agent/core/reaper.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "lib/timeutil.h"

int ag_reaper_init(struct ag_reaper *r)
{
	memset(r, 0, sizeof *r);
	if (pthread_mutex_init(&r->lock, NULL) != 0)
		return -1;
	if (ax_mono_cond_init(&r->cond) != 0) {
		pthread_mutex_destroy(&r->lock);
		return -1;
	}
	return 0;
}

void ag_reaper_destroy(struct ag_reaper *r)
{
	pthread_cond_destroy(&r->cond);
	pthread_mutex_destroy(&r->lock);
	free(r->watched);
	memset(r, 0, sizeof *r);
}

void ag_reaper_lock(struct ag_reaper *r)
{
	pthread_mutex_lock(&r->lock);
}

void ag_reaper_unlock(struct ag_reaper *r)
{
	pthread_mutex_unlock(&r->lock);
}

static struct ag_reaped *find(struct ag_reaper *r, pid_t pid)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->watched[i].pid == pid)
			return &r->watched[i];
	return NULL;
}

static void drop(struct ag_reaper *r, struct ag_reaped *w)
{
	*w = r->watched[--r->n];
}

int ag_reaper_watch_locked(struct ag_reaper *r, pid_t pid)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 8;
		struct ag_reaped *grown = realloc(r->watched, cap * sizeof *grown);

		if (!grown)
			return -1;
		r->watched = grown;
		r->cap = cap;
	}
	r->watched[r->n++] = (struct ag_reaped){ .pid = pid };
	return 0;
}

int ag_reaper_wait(struct ag_reaper *r, pid_t pid, int *status, int timeout_ms)
{
	struct timespec deadline;
	struct ag_reaped *w;
	int rc = 0, timed_out = 0;

	deadline = ax_mono_deadline(timeout_ms);
	pthread_mutex_lock(&r->lock);
	for (;;) {
		/* Look the entry up again after every wake-up: the array may have moved. */
		w = find(r, pid);
		if (!w) {
			rc = -1;
			break;
		}
		if (w->done) {
			if (status)
				*status = w->status;
			drop(r, w);
			break;
		}
		if (timed_out) {
			rc = 1;
			break;
		}
		if (timeout_ms < 0)
			pthread_cond_wait(&r->cond, &r->lock);
		else if (pthread_cond_timedwait(&r->cond, &r->lock, &deadline) == ETIMEDOUT)
			timed_out = 1;	/* one last look: it may have exited just now */
	}
	pthread_mutex_unlock(&r->lock);
	return rc;
}

void ag_reaper_forget(struct ag_reaper *r, pid_t pid)
{
	struct ag_reaped *w;

	pthread_mutex_lock(&r->lock);
	w = find(r, pid);
	if (w)
		drop(r, w);
	pthread_mutex_unlock(&r->lock);
}

int ag_reaper_reap(struct ag_reaper *r, ag_reap_fn unclaimed, void *arg)
{
	int count = 0;

	for (;;) {
		struct ag_reaped *w;
		int status;
		pid_t pid;

		pthread_mutex_lock(&r->lock);
		pid = waitpid(-1, &status, WNOHANG);
		if (pid <= 0) {
			pthread_mutex_unlock(&r->lock);
			if (pid < 0 && errno == EINTR)
				continue;
			return count;
		}
		count++;
		w = find(r, pid);
		if (w) {
			w->status = status;
			w->done = 1;
			pthread_cond_broadcast(&r->cond);
		}
		pthread_mutex_unlock(&r->lock);
		/* Outside the lock: the callback may do file I/O and must not hold up spawners. */
		if (!w && unclaimed)
			unclaimed(pid, status, arg);
	}
}
