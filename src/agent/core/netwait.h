/* Holding commands until the sandbox's network is up. The engine does not
 * wait for the user-mode stack before the sandbox is ready (its start takes
 * longer than the sandbox's); it hands the agent a pipe the stack writes to
 * (or closes) once the sandbox's interface is configured, and commands the
 * agent starts wait for that, so the first one already has a network. */
#ifndef ALLOX_AGENT_NETWAIT_H
#define ALLOX_AGENT_NETWAIT_H

#include <pthread.h>
#include <stdbool.h>

struct ag_netwait {
	pthread_mutex_t lock;
	int fd;            /* the pipe's read end; -1 once seen ready (or never given) */
};

/* FD: the read end (-1: nothing to wait for). */
void ag_netwait_init(struct ag_netwait *w, int fd);
/* Wait until the stack has written or gone, at most TIMEOUT_MS; later
 * calls return at once. A NULL W has nothing to wait for. */
void ag_netwait(struct ag_netwait *w, int timeout_ms);
void ag_netwait_destroy(struct ag_netwait *w);

#endif
