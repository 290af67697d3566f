#include "agent/core/netwait.h"

#include <errno.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include "lib/timeutil.h"

void ag_netwait_init(struct ag_netwait *w, int fd)
{
	pthread_mutex_init(&w->lock, NULL);
	w->fd = fd;
}

void ag_netwait(struct ag_netwait *w, int timeout_ms)
{
	long long deadline = ax_mono_ms() + timeout_ms;

	if (!w)
		return;
	/* One waiter at a time; the others then find it done. */
	pthread_mutex_lock(&w->lock);
	while (w->fd >= 0) {
		struct pollfd p = { .fd = w->fd, .events = POLLIN };
		long long left = deadline - ax_mono_ms();
		int r;

		if (left <= 0)
			break;
		r = poll(&p, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		/* Readable: the stack's byte, or EOF if it died (no network then,
		 * and nothing more to wait for). A timeout leaves the fd for a
		 * later command. */
		if (r != 0) {
			close(w->fd);
			w->fd = -1;
		}
		break;
	}
	pthread_mutex_unlock(&w->lock);
}

void ag_netwait_destroy(struct ag_netwait *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	pthread_mutex_destroy(&w->lock);
}
