/* Child reaping for a PID 1.
 *
 * The main loop reaps every child with waitpid(-1) so orphans never pile up as
 * zombies. That would steal exit statuses from code that spawned a child and
 * wants to wait for it, so such code registers the pid first:
 *
 *	ag_reaper_lock(r);
 *	pid = fork();           (or posix_spawn)
 *	if (pid > 0) ag_reaper_watch_locked(r, pid);
 *	ag_reaper_unlock(r);
 *	...
 *	ag_reaper_wait(r, pid, &status, timeout_ms);
 *
 * Reaping happens under the same lock, so a child cannot be reaped between
 * fork and registration. */
#ifndef ALLOX_AGENT_REAPER_H
#define ALLOX_AGENT_REAPER_H

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

struct ag_reaped {
	pid_t pid;
	int status;
	int done;
};

struct ag_reaper {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct ag_reaped *watched;
	size_t n, cap;
};

/* Called by ag_reaper_reap for each child nobody watches (the entrypoint, orphans). */
typedef void (*ag_reap_fn)(pid_t pid, int status, void *arg);

int ag_reaper_init(struct ag_reaper *r);
void ag_reaper_destroy(struct ag_reaper *r);

void ag_reaper_lock(struct ag_reaper *r);
void ag_reaper_unlock(struct ag_reaper *r);

/* Keep PID's exit status for ag_reaper_wait. Call with the lock held. -1 on ENOMEM. */
int ag_reaper_watch_locked(struct ag_reaper *r, pid_t pid);

/* Wait for a watched PID to exit; TIMEOUT_MS < 0 waits for ever.
 * 0 with *STATUS filled (and PID forgotten), 1 on timeout, -1 if PID is not watched. */
int ag_reaper_wait(struct ag_reaper *r, pid_t pid, int *status, int timeout_ms);

/* Stop watching PID; its status will be discarded when it exits. */
void ag_reaper_forget(struct ag_reaper *r, pid_t pid);

/* Reap every exited child without blocking. Returns how many were reaped. */
int ag_reaper_reap(struct ag_reaper *r, ag_reap_fn unclaimed, void *arg);

#endif
