/* Host-only endpoints for a sandbox's ports.
 *
 * The engine, not the sandbox, owns the listener: it binds 127.0.0.1:0 in
 * the host's namespace, and a thread of its own that has entered the
 * sandbox's network namespace accepts on it and connects, from there, to
 * the port (a socket belongs to the namespace it was made in, whichever
 * thread uses it later). Bytes move with splice(2) through a pipe, so they
 * are never copied into the engine. A thread per direction of a
 * connection: these listeners are on the host's loopback only, out of
 * reach of sandboxes.
 * Whether a port is listened on is asked of the kernel (sock_diag), not
 * tried with a connection, which a server that accepts one client only
 * would spend on us. */
#include "engine/runtime/forward.h"

#include "lib/splice_copy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/tcp.h>


typedef struct fwd {
	struct fwd *next;
	char id[64];
	int port, host_port;
	int listen_fd, stop_fd, netns_fd;
	struct sockaddr_storage target;
	socklen_t target_len;
	pthread_t thread;
} fwd;

struct ax_fwds {
	pthread_mutex_t lock;
	fwd *list;
};

ax_fwds *ax_fwds_new(void)
{
	ax_fwds *set = calloc(1, sizeof *set);

	if (set)
		pthread_mutex_init(&set->lock, NULL);
	return set;
}

/* ---------- asking the kernel ---------- */

typedef struct in_ns {
	int netns_fd, domain, type, protocol;
	int fd, err;
} in_ns;

static void *make_socket(void *arg)
{
	in_ns *a = arg;

	/* This thread ends here: having entered the namespace is harmless. */
	if (setns(a->netns_fd, CLONE_NEWNET) < 0) {
		a->err = errno;
		return NULL;
	}
	a->fd = socket(a->domain, a->type | SOCK_CLOEXEC, a->protocol);
	if (a->fd < 0)
		a->err = errno;
	return NULL;
}

/* A socket made in the namespace of NETNS_FD, by a short-lived thread. */
static int socket_in(int netns_fd, int domain, int type, int protocol)
{
	in_ns a = { netns_fd, domain, type, protocol, -1, 0 };
	pthread_t t;

	if ((errno = pthread_create(&t, NULL, make_socket, &a)) != 0)
		return -1;
	pthread_join(t, NULL);
	errno = a.err;
	return a.fd;
}

/* One dump of FAMILY's listening TCP sockets; 1 when one is on PORT, with
 * where to connect to it in TARGET. */
static int dump_listeners(int nl, int family, int port, struct sockaddr_storage *target, socklen_t *tlen)
{
	struct {
		struct nlmsghdr nh;
		struct inet_diag_req_v2 req;
	} q;
	union {
		struct nlmsghdr nh;
		char buf[16384];
	} r;
	int found = 0;

	memset(&q, 0, sizeof q);
	q.nh.nlmsg_len = sizeof q;
	q.nh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	q.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	q.req.sdiag_family = (uint8_t)family;
	q.req.sdiag_protocol = IPPROTO_TCP;
	q.req.idiag_states = 1U << TCP_LISTEN;
	if (send(nl, &q, sizeof q, 0) != (ssize_t)sizeof q)
		return -1;
	for (;;) {
		ssize_t n = recv(nl, r.buf, sizeof r.buf, 0);
		struct nlmsghdr *h;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		for (h = &r.nh; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			const struct inet_diag_msg *m = NLMSG_DATA(h);

			if (h->nlmsg_type == NLMSG_DONE)
				return found;
			if (h->nlmsg_type == NLMSG_ERROR)
				return -1;
			if (found || ntohs(m->id.idiag_sport) != port)
				continue;
			found = 1;
			memset(target, 0, sizeof *target);
			if (family == AF_INET) {
				struct sockaddr_in *a = (struct sockaddr_in *)target;

				a->sin_family = AF_INET;
				a->sin_port = htons((uint16_t)port);
				memcpy(&a->sin_addr, m->id.idiag_src, 4);
				/* A wildcard listener is reached on the loopback. */
				if (a->sin_addr.s_addr == htonl(INADDR_ANY))
					a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
				*tlen = sizeof *a;
			} else {
				struct sockaddr_in6 *a = (struct sockaddr_in6 *)target;

				a->sin6_family = AF_INET6;
				a->sin6_port = htons((uint16_t)port);
				memcpy(&a->sin6_addr, m->id.idiag_src, 16);
				if (IN6_IS_ADDR_UNSPECIFIED(&a->sin6_addr))
					a->sin6_addr = in6addr_loopback;
				*tlen = sizeof *a;
			}
		}
	}
}

static int find_listener(int netns_fd, int port, struct sockaddr_storage *target, socklen_t *tlen, ax_error *err)
{
	int nl = socket_in(netns_fd, AF_NETLINK, SOCK_DGRAM, NETLINK_SOCK_DIAG), rc;

	if (nl < 0)
		return ax_fail(err, AX_CODE_RUNTIME, "cannot look into the sandbox's network: %s",
			       strerror(errno));
	rc = dump_listeners(nl, AF_INET, port, target, tlen);
	if (rc == 0)
		rc = dump_listeners(nl, AF_INET6, port, target, tlen);
	close(nl);
	if (rc < 0)
		return ax_fail(err, AX_CODE_RUNTIME, "cannot list the sandbox's listening sockets");
	return rc;
}

int ax_fwd_listening(int netns_fd, int port, ax_error *err)
{
	struct sockaddr_storage t;
	socklen_t len;

	return find_listener(netns_fd, port, &t, &len, err);
}

/* ---------- moving bytes ---------- */

typedef struct conn_args {
	int client;
	struct sockaddr_storage target;
	socklen_t target_len;
} conn_args;

/* Runs on a thread made by the forwarder's, so in the sandbox's namespace. */
static void *conn_main(void *arg)
{
	conn_args *c = arg;
	int s = socket(c->target.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, big = 4 << 20;

	if (s >= 0 && connect(s, (struct sockaddr *)&c->target, c->target_len) == 0) {
		setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		setsockopt(s, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
		setsockopt(c->client, SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
		ax_splice_relay(c->client, s);
	}
	if (s >= 0)
		close(s);
	close(c->client);
	free(c);
	return NULL;
}

static void *fwd_main(void *arg)
{
	fwd *f = arg;
	pthread_attr_t attr;

	/* From here on every socket this thread (and those it starts) makes is
	 * the sandbox's; the listener was made before, in the host's. */
	if (setns(f->netns_fd, CLONE_NEWNET) < 0)
		return NULL;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (;;) {
		struct pollfd p[2] = { { f->listen_fd, POLLIN, 0 }, { f->stop_fd, POLLIN, 0 } };
		conn_args *c;
		pthread_t t;
		int fd, one = 1;

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents)
			break;
		if (!p[0].revents)
			continue;
		fd = accept4(f->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		c = malloc(sizeof *c);
		if (!c) {
			close(fd);
			continue;
		}
		c->client = fd;
		c->target = f->target;
		c->target_len = f->target_len;
		if (pthread_create(&t, &attr, conn_main, c) != 0) {
			close(fd);
			free(c);
		}
	}
	pthread_attr_destroy(&attr);
	return NULL;
}

/* ---------- the set ---------- */

static void fwd_stop(fwd *f)
{
	uint64_t one = 1;

	if (write(f->stop_fd, &one, sizeof one) < 0) {
		/* An eventfd write only fails when it would overflow. */
	}
	pthread_join(f->thread, NULL);
	close(f->listen_fd);
	close(f->stop_fd);
	close(f->netns_fd);
	free(f);
}

static int listen_host(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 128) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
		close(fd);
		return -1;
	}
	*port = ntohs(a.sin_port);
	return fd;
}

static bool same_target(const fwd *f, const struct sockaddr_storage *t, socklen_t len)
{
	return f->target_len == len && memcmp(&f->target, t, len) == 0;
}

int ax_fwd_get(ax_fwds *set, const char *id, int netns_fd, int port, int *host_port, ax_error *err)
{
	struct sockaddr_storage target;
	socklen_t tlen = 0;
	fwd *f, **pp;
	int rc = find_listener(netns_fd, port, &target, &tlen, err);

	if (rc <= 0)
		return rc < 0 ? -1 : ax_fail(err, AX_CODE_NOT_LISTENING, "nothing listens on port %d", port);
	pthread_mutex_lock(&set->lock);
	for (pp = &set->list; (f = *pp); pp = &f->next) {
		if (strcmp(f->id, id) != 0 || f->port != port)
			continue;
		if (same_target(f, &target, tlen)) {
			*host_port = f->host_port;
			pthread_mutex_unlock(&set->lock);
			return 0;
		}
		/* The server moved (another address now): a new forwarder. */
		*pp = f->next;
		fwd_stop(f);
		break;
	}
	f = calloc(1, sizeof *f);
	if (!f) {
		pthread_mutex_unlock(&set->lock);
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	}
	snprintf(f->id, sizeof f->id, "%s", id);
	f->port = port;
	f->target = target;
	f->target_len = tlen;
	f->listen_fd = listen_host(&f->host_port);
	f->stop_fd = eventfd(0, EFD_CLOEXEC);
	f->netns_fd = fcntl(netns_fd, F_DUPFD_CLOEXEC, 3);
	if (f->listen_fd < 0 || f->stop_fd < 0 || f->netns_fd < 0 ||
	    (errno = pthread_create(&f->thread, NULL, fwd_main, f)) != 0) {
		int e = errno;

		if (f->listen_fd >= 0)
			close(f->listen_fd);
		if (f->stop_fd >= 0)
			close(f->stop_fd);
		if (f->netns_fd >= 0)
			close(f->netns_fd);
		free(f);
		pthread_mutex_unlock(&set->lock);
		return ax_fail(err, AX_CODE_IO, "cannot start a forwarder: %s", strerror(e));
	}
	f->next = set->list;
	set->list = f;
	*host_port = f->host_port;
	pthread_mutex_unlock(&set->lock);
	return 0;
}

void ax_fwd_drop(ax_fwds *set, const char *id)
{
	fwd *f, **pp;

	if (!set)
		return;
	pthread_mutex_lock(&set->lock);
	for (pp = &set->list; (f = *pp);) {
		if (strcmp(f->id, id) == 0) {
			*pp = f->next;
			fwd_stop(f);
		} else {
			pp = &f->next;
		}
	}
	pthread_mutex_unlock(&set->lock);
}

void ax_fwds_free(ax_fwds *set)
{
	if (!set)
		return;
	while (set->list) {
		fwd *f = set->list;

		set->list = f->next;
		fwd_stop(f);
	}
	pthread_mutex_destroy(&set->lock);
	free(set);
}
