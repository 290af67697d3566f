/* See netns_call.h. */
#include "engine/runtime/netns_call.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>

typedef struct call {
	int netns_fd;
	int (*fn)(void *arg);
	void *arg;
	int rc, err;
} call;

static void *run(void *arg)
{
	call *c = arg;

	if (setns(c->netns_fd, CLONE_NEWNET) < 0) {
		c->rc = -1;
		c->err = errno;
		return NULL;
	}
	errno = 0;
	c->rc = c->fn(c->arg);
	c->err = errno;
	return NULL;
}

int ax_netns_call(int netns_fd, int (*fn)(void *arg), void *arg)
{
	call c = { netns_fd, fn, arg, -1, 0 };
	pthread_t t;
	int rc = pthread_create(&t, NULL, run, &c);

	if (rc != 0) {
		errno = rc;
		return -1;
	}
	pthread_join(t, NULL);
	errno = c.err;
	return c.rc;
}
