/* The front door of a listening socket: see listen_gate.h. */
#include "lib/listen_gate.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "lib/timeutil.h"

#define DEFAULT_HEADER_MS 10000u
#define DEFAULT_HEADER_MAX ((size_t)32 * 1024)
#define MIN_HELD 16u
#define MAX_HELD 16384u
/* Every peek re-reads the header from its start; an honest client sends it
 * in a write or a few, so a peer needing more is trickling on purpose. */
#define MAX_PEEKS 64u
/* Accepts per wake-up, so held connections are looked at between bursts. */
#define ACCEPT_BURST 64
/* Out of descriptors with nothing held to close: wait this long. */
#define ACCEPT_PAUSE_MS 100

static const char too_large[] = "HTTP/1.1 431 Request Header Fields Too Large\r\n"
				"Connection: close\r\nContent-Length: 0\r\n\r\n";

struct held {
	int fd;
	unsigned peeks;
	int64_t deadline;
	struct held *prev, *next;     /* accept order, oldest first */
	socklen_t addrlen;
	struct sockaddr_storage addr;
};

struct ax_gate {
	int listen_fd, epfd, wake_fd;
	unsigned max_held, header_ms;
	size_t header_max;
	ax_gate_pass pass;
	void *cls;
	pthread_t thread;
	/* The rest belongs to the gate's thread. */
	struct held *oldest, *newest;
	unsigned held;
	/* Closed while a batch of events may still name them: freed after it. */
	struct held *dead;
	int64_t paused_until;         /* 0 while accepting */
	char *peek;                   /* header_max bytes */
};

bool ax_gate_header_complete(const char *buf, size_t len)
{
	size_t i = 0;

	for (;;) {
		if (i < len && buf[i] == '\n')
			i++;
		else if (i + 1 < len && buf[i] == '\r' && buf[i + 1] == '\n')
			i += 2;
		else
			break;
	}
	/* From the request line on, the first empty line ends the header. */
	for (; i < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (i + 1 < len && buf[i + 1] == '\n')
			return true;
		if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
			return true;
	}
	return false;
}

static void unlink_held(ax_gate *g, struct held *h)
{
	if (h->prev)
		h->prev->next = h->next;
	else
		g->oldest = h->next;
	if (h->next)
		h->next->prev = h->prev;
	else
		g->newest = h->prev;
	g->held--;
	/* Closing removes it from the epoll set too; passing it on must not
	 * leave it there. */
	epoll_ctl(g->epfd, EPOLL_CTL_DEL, h->fd, NULL);
}

static void bury(ax_gate *g, struct held *h)
{
	h->fd = -1;
	h->next = g->dead;
	g->dead = h;
}

static void drop(ax_gate *g, struct held *h)
{
	unlink_held(g, h);
	close(h->fd);
	bury(g, h);
}

static void pass_on(ax_gate *g, struct held *h)
{
	unlink_held(g, h);
	g->pass(g->cls, h->fd, (const struct sockaddr *)&h->addr, h->addrlen);
	bury(g, h);
}

static void free_dead(ax_gate *g)
{
	while (g->dead) {
		struct held *h = g->dead;

		g->dead = h->next;
		free(h);
	}
}

/* A header past header_max: say so (consuming what came, so closing does not
 * reset the connection before the client reads the answer). */
static void refuse(ax_gate *g, struct held *h)
{
	ssize_t n;

	do
		n = recv(h->fd, g->peek, g->header_max, MSG_DONTWAIT);
	while (n > 0 && (size_t)n == g->header_max);
	if (send(h->fd, too_large, sizeof too_large - 1, MSG_DONTWAIT | MSG_NOSIGNAL) > 0)
		shutdown(h->fd, SHUT_WR);
	drop(g, h);
}

/* New bytes (or a hang-up) on a held connection. */
static void examine(ax_gate *g, struct held *h, uint32_t events)
{
	ssize_t n = recv(h->fd, g->peek, g->header_max, MSG_PEEK | MSG_DONTWAIT);
	bool ended = events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR);

	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
		if (ended)
			drop(g, h);
		return;
	}
	if (n <= 0) {
		drop(g, h);
		return;
	}
	if (ax_gate_header_complete(g->peek, (size_t)n)) {
		/* Even from a client that has stopped sending: it waits for the answer. */
		pass_on(g, h);
		return;
	}
	if ((size_t)n >= g->header_max)
		refuse(g, h);
	else if (ended || ++h->peeks > MAX_PEEKS)
		drop(g, h);
}

static void set_accepting(ax_gate *g, bool on)
{
	struct epoll_event ev = { .events = on ? EPOLLIN : 0, .data.ptr = &g->listen_fd };

	epoll_ctl(g->epfd, EPOLL_CTL_MOD, g->listen_fd, &ev);
	g->paused_until = on ? 0 : ax_mono_ms() + ACCEPT_PAUSE_MS;
}

static void hold(ax_gate *g, int fd, const struct sockaddr_storage *addr, socklen_t addrlen)
{
	struct held *h;
	struct epoll_event ev;

	if (g->held >= g->max_held)
		drop(g, g->oldest);
	h = calloc(1, sizeof *h);
	if (!h) {
		close(fd);
		return;
	}
	h->fd = fd;
	h->deadline = ax_mono_ms() + g->header_ms;
	h->addr = *addr;
	h->addrlen = addrlen;
	/* Edge-triggered: a peek leaves the bytes queued, so a level-triggered
	 * wait would wake at once until the rest arrived. A header already
	 * queued still reports once, when added. */
	ev.events = EPOLLIN | EPOLLRDHUP | EPOLLET;
	ev.data.ptr = h;
	if (epoll_ctl(g->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		close(fd);
		free(h);
		return;
	}
	h->prev = g->newest;
	if (g->newest)
		g->newest->next = h;
	else
		g->oldest = h;
	g->newest = h;
	g->held++;
}

static void accept_some(ax_gate *g)
{
	int i;

	for (i = 0; i < ACCEPT_BURST; i++) {
		struct sockaddr_storage addr;
		socklen_t addrlen = sizeof addr;
		int fd = accept4(g->listen_fd, (struct sockaddr *)&addr, &addrlen, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd >= 0) {
			hold(g, fd, &addr, addrlen);
			continue;
		}
		switch (errno) {
		case EAGAIN:
#if EWOULDBLOCK != EAGAIN
		case EWOULDBLOCK:
#endif
			return;
		case EINTR:
		case ECONNABORTED:
		case EPROTO:
			continue;
		case EMFILE:
		case ENFILE:
		case ENOBUFS:
		case ENOMEM:
			/* The newest connection matters more than the oldest idle one. */
			if (g->oldest) {
				drop(g, g->oldest);
				continue;
			}
			set_accepting(g, false);
			return;
		default:
			set_accepting(g, false);
			return;
		}
	}
}

static void expire(ax_gate *g, int64_t now)
{
	while (g->oldest && g->oldest->deadline <= now)
		drop(g, g->oldest);
}

static int next_timeout(const ax_gate *g, int64_t now)
{
	int64_t until = -1;

	if (g->oldest)
		until = g->oldest->deadline;
	if (g->paused_until && (until < 0 || g->paused_until < until))
		until = g->paused_until;
	if (until < 0)
		return -1;
	return until <= now ? 0 : until - now > INT32_MAX ? INT32_MAX : (int)(until - now);
}

static void *run(void *arg)
{
	ax_gate *g = arg;
	struct epoll_event evs[64];

	for (;;) {
		int64_t now = ax_mono_ms();
		int n, i;

		expire(g, now);
		if (g->paused_until && now >= g->paused_until)
			set_accepting(g, true);
		free_dead(g);
		n = epoll_wait(g->epfd, evs, (int)(sizeof evs / sizeof evs[0]), next_timeout(g, now));
		for (i = 0; i < n; i++) {
			void *p = evs[i].data.ptr;

			if (p == &g->wake_fd)
				return NULL;
			if (p == &g->listen_fd)
				accept_some(g);
			else if (((struct held *)p)->fd >= 0)
				examine(g, p, evs[i].events);
		}
	}
}

static unsigned default_max_held(void)
{
	struct rlimit rl;
	rlim_t half;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return MAX_HELD;
	half = rl.rlim_cur / 2;
	return half < MIN_HELD ? MIN_HELD : half > MAX_HELD ? MAX_HELD : (unsigned)half;
}

static void gate_free(ax_gate *g)
{
	while (g->oldest)
		drop(g, g->oldest);
	free_dead(g);
	if (g->wake_fd >= 0)
		close(g->wake_fd);
	if (g->epfd >= 0)
		close(g->epfd);
	free(g->peek);
	free(g);
}

int ax_gate_start(ax_gate **gate, int listen_fd, const ax_gate_limits *lim, ax_gate_pass pass, void *cls,
		  ax_error *err)
{
	ax_gate *g = calloc(1, sizeof *g);
	struct epoll_event ev = { .events = EPOLLIN };
	int e, flags;

	*gate = NULL;
	if (!g)
		return ax_fail(err, AX_CODE_SERVER, "out of memory");
	g->listen_fd = listen_fd;
	g->epfd = g->wake_fd = -1;
	g->pass = pass;
	g->cls = cls;
	g->max_held = lim && lim->max_held ? lim->max_held : default_max_held();
	g->header_ms = lim && lim->header_ms ? lim->header_ms : DEFAULT_HEADER_MS;
	g->header_max = lim && lim->header_max ? lim->header_max : DEFAULT_HEADER_MAX;
	g->peek = malloc(g->header_max);
	g->epfd = epoll_create1(EPOLL_CLOEXEC);
	g->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!g->peek || g->epfd < 0 || g->wake_fd < 0) {
		e = g->peek ? errno : ENOMEM;
		gate_free(g);
		return ax_fail(err, AX_CODE_SERVER, "cannot set up the listener: %s", strerror(e));
	}
	ev.data.ptr = &g->wake_fd;
	if (epoll_ctl(g->epfd, EPOLL_CTL_ADD, g->wake_fd, &ev) < 0)
		goto fail;
	/* A client that resets between epoll's report and accept4 must not leave
	 * the loop blocked in accept4. */
	flags = fcntl(listen_fd, F_GETFL);
	if (flags < 0 || fcntl(listen_fd, F_SETFL, flags | O_NONBLOCK) < 0)
		goto fail;
	ev.data.ptr = &g->listen_fd;
	if (epoll_ctl(g->epfd, EPOLL_CTL_ADD, listen_fd, &ev) < 0)
		goto fail;
	e = pthread_create(&g->thread, NULL, run, g);
	if (e) {
		errno = e;
		goto fail;
	}
	*gate = g;
	return 0;
fail:
	e = errno;
	gate_free(g);
	return ax_fail(err, AX_CODE_SERVER, "cannot watch listening socket %d: %s", listen_fd, strerror(e));
}

void ax_gate_stop(ax_gate *g)
{
	uint64_t one = 1;

	if (!g)
		return;
	if (write(g->wake_fd, &one, sizeof one) < 0) {
		/* Only a counter at its maximum refuses, and it is still readable. */
	}
	pthread_join(g->thread, NULL);
	gate_free(g);
}
