/* Sandboxes' resolvers and filters: see egress.h. */
#include "engine/egress/egress.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "engine/egress/egress_dns.h"
#include "engine/egress/egress_nft.h"
#include "engine/egress/egress_policy.h"
#include "engine/egress/egress_upstream.h"
#include "engine/runtime/netns_call.h"

#define DNS_PORT 53
#define MSG_MAX 65536
#define ADDRS_MAX 64
/* Addresses remembered per sandbox for policy changes; past this the
 * oldest are forgotten (they stay let through until the next change). */
#define KNOWN_MAX 4096
/* A TCP client gets this long per query, and this many queries. */
#define TCP_TIMEOUT_S 2
#define TCP_QUERIES 16
/* What answers from the hosts file live in caches inside. */
#define HOSTS_TTL 60

typedef struct known {
	char name[AX_DNS_NAME_MAX];
	ax_dns_addr addr;
} known;

typedef struct egress {
	struct egress *next;
	char id[128];
	const char *hosts_file;     /* the set's */
	pthread_mutex_t mu;         /* policy, nft, known */
	json_t *policy;
	struct nft_ctx *nft;        /* NULL: allow by default, nothing filtered */
	known *known;
	size_t nknown;
	int udp, tcp, stop[2];
	pthread_t thread;
	bool started;
} egress;

struct ax_egresses {
	pthread_mutex_t mu;
	egress *list;
	char *hosts_file;
};

ax_egresses *ax_egresses_new(const char *hosts_file)
{
	ax_egresses *set = calloc(1, sizeof *set);

	if (!set)
		return NULL;
	pthread_mutex_init(&set->mu, NULL);
	if (hosts_file && *hosts_file && !(set->hosts_file = strdup(hosts_file))) {
		free(set);
		return NULL;
	}
	return set;
}

/* ---------- the resolver ---------- */

/* Let ADDRS of NAME through, if the policy still allows NAME (it may have
 * changed since the question was checked). 0, or -1: answer SERVFAIL. */
static int admit(egress *g, const char *name, const ax_dns_addr *addrs, int n)
{
	ax_error err;
	int rc = 0;

	pthread_mutex_lock(&g->mu);
	if (!ax_policy_allows(g->policy, name)) {
		rc = -1;
	} else if (g->nft && n > 0) {
		rc = ax_nft_allow(g->nft, addrs, n, false, &err);
		for (int i = 0; rc == 0 && i < n; i++) {
			bool have = false;

			for (size_t k = 0; k < g->nknown && !have; k++)
				have = strcmp(g->known[k].name, name) == 0 && g->known[k].addr.family == addrs[i].family &&
				       memcmp(g->known[k].addr.a, addrs[i].a, sizeof addrs[i].a) == 0;
			if (have)
				continue;
			if (g->nknown == KNOWN_MAX) {
				memmove(g->known, g->known + 1, (KNOWN_MAX - 1) * sizeof *g->known);
				g->nknown--;
			}
			snprintf(g->known[g->nknown].name, sizeof g->known[0].name, "%s", name);
			g->known[g->nknown++].addr = addrs[i];
		}
	}
	pthread_mutex_unlock(&g->mu);
	return rc;
}

/* The answer to query Q in ANS: its length, 0 for none (not a query). */
static size_t answer(egress *g, const unsigned char *q, size_t qlen, bool tcp, unsigned char *ans, size_t cap)
{
	char name[AX_DNS_NAME_MAX];
	ax_dns_addr addrs[ADDRS_MAX];
	int qtype, n;
	bool allowed;
	ssize_t got;

	if (ax_dns_question(q, qlen, name, &qtype) < 0)
		return 0;
	pthread_mutex_lock(&g->mu);
	allowed = ax_policy_allows(g->policy, name);
	pthread_mutex_unlock(&g->mu);
	/* A denied name does not exist, and is not even asked upstream (a
	 * query is itself a message out). */
	if (!allowed)
		return ax_dns_reply(q, qlen, ns_r_nxdomain, NULL, 0, 0, ans, cap);
	if (g->hosts_file && (n = ax_hosts_lookup(g->hosts_file, name, addrs, ADDRS_MAX)) >= 0)
		return admit(g, name, addrs, n) < 0 ? ax_dns_reply(q, qlen, ns_r_servfail, NULL, 0, 0, ans, cap)
						   : ax_dns_reply(q, qlen, ns_r_noerror, addrs, n, HOSTS_TTL, ans, cap);
	got = ax_upstream_query(q, qlen, tcp, ans, cap);
	if (got <= 0)
		return ax_dns_reply(q, qlen, ns_r_servfail, NULL, 0, 0, ans, cap);
	/* The addresses go through before the answer does: the client connects
	 * as soon as it has it. */
	n = ax_dns_answer_addrs(ans, (size_t)got, addrs, ADDRS_MAX);
	if (n > 0 && admit(g, name, addrs, n) < 0)
		return ax_dns_reply(q, qlen, ns_r_servfail, NULL, 0, 0, ans, cap);
	return (size_t)got;
}

static int read_full(int fd, unsigned char *buf, size_t len)
{
	size_t at = 0;

	while (at < len) {
		ssize_t r = read(fd, buf + at, len - at);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		at += (size_t)r;
	}
	return 0;
}

/* Queries on one TCP connection, each prefixed by its length. */
static void serve_tcp(egress *g, int c, unsigned char *q, unsigned char *ans)
{
	struct timeval tv = { TCP_TIMEOUT_S, 0 };

	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	for (int i = 0; i < TCP_QUERIES; i++) {
		unsigned char len[2];
		size_t qlen, alen;

		if (read_full(c, len, 2) < 0)
			break;
		qlen = ((size_t)len[0] << 8) | len[1];
		if (qlen == 0 || read_full(c, q, qlen) < 0)
			break;
		alen = answer(g, q, qlen, true, ans + 2, MSG_MAX - 2);
		if (alen == 0)
			break;
		ans[0] = (unsigned char)(alen >> 8);
		ans[1] = (unsigned char)alen;
		if (send(c, ans, alen + 2, MSG_NOSIGNAL) != (ssize_t)(alen + 2))
			break;
	}
	close(c);
}

static void *serve(void *arg)
{
	egress *g = arg;
	unsigned char *q = malloc(MSG_MAX), *ans = malloc(MSG_MAX);

	while (q && ans) {
		struct pollfd p[3] = { { g->udp, POLLIN, 0 }, { g->tcp, POLLIN, 0 }, { g->stop[0], POLLIN, 0 } };

		if (poll(p, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[2].revents)
			break;
		if (p[0].revents & POLLIN) {
			struct sockaddr_storage from;
			socklen_t flen = sizeof from;
			ssize_t n = recvfrom(g->udp, q, MSG_MAX, MSG_DONTWAIT, (struct sockaddr *)&from, &flen);
			size_t alen = n > 0 ? answer(g, q, (size_t)n, false, ans, MSG_MAX) : 0;

			if (alen)
				sendto(g->udp, ans, alen, MSG_DONTWAIT, (struct sockaddr *)&from, flen);
		}
		if (p[1].revents & POLLIN) {
			int c = accept4(g->tcp, NULL, NULL, SOCK_CLOEXEC);

			if (c >= 0)
				serve_tcp(g, c, q, ans);
		}
	}
	free(q);
	free(ans);
	return NULL;
}

/* ---------- start and stop ---------- */

/* In the sandbox's namespace: its loopback up (the setup brings it up too,
 * later) and the resolver's sockets on 127.0.0.1:53. */
static int make_sockets(void *arg)
{
	egress *g = arg;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(DNS_PORT),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct ifreq ifr;
	int one = 1, fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof ifr);
	memcpy(ifr.ifr_name, "lo", 3);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0 || ((ifr.ifr_flags & IFF_UP) == 0 &&
						   (ifr.ifr_flags |= IFF_UP, ioctl(fd, SIOCSIFFLAGS, &ifr) < 0))) {
		close(fd);
		return -1;
	}
	g->udp = fd;
	if (bind(g->udp, (struct sockaddr *)&a, sizeof a) < 0)
		return -1;
	g->tcp = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (g->tcp < 0 || setsockopt(g->tcp, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
	    bind(g->tcp, (struct sockaddr *)&a, sizeof a) < 0 || listen(g->tcp, 64) < 0)
		return -1;
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void egress_free(egress *g)
{
	if (g->started) {
		/* A byte wakes the thread's poll; it ends after its current query. */
		if (write(g->stop[1], "", 1) < 0) {
			/* The pipe is ours and empty: cannot fail. */
		}
		pthread_join(g->thread, NULL);
	}
	close_fd(&g->udp);
	close_fd(&g->tcp);
	close_fd(&g->stop[0]);
	close_fd(&g->stop[1]);
	ax_nft_close(g->nft);
	json_decref(g->policy);
	free(g->known);
	pthread_mutex_destroy(&g->mu);
	free(g);
}

static egress **find(ax_egresses *set, const char *id)
{
	egress **p = &set->list;

	while (*p && strcmp((*p)->id, id) != 0)
		p = &(*p)->next;
	return p;
}

int ax_egress_start(ax_egresses *set, const char *id, int netns_fd, const json_t *policy, bool fresh,
		    ax_error *err)
{
	egress *g = calloc(1, sizeof *g);
	int rc;

	if (!g)
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	pthread_mutex_init(&g->mu, NULL);
	g->udp = g->tcp = g->stop[0] = g->stop[1] = -1;
	snprintf(g->id, sizeof g->id, "%s", id);
	g->hosts_file = set->hosts_file;
	g->policy = json_deep_copy(policy);
	g->known = ax_policy_denies_by_default(policy) ? calloc(KNOWN_MAX, sizeof *g->known) : NULL;
	if (!g->policy || (ax_policy_denies_by_default(policy) && !g->known)) {
		egress_free(g);
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	}
	if (ax_policy_denies_by_default(policy)) {
		g->nft = ax_nft_open(netns_fd, err);
		if (!g->nft || (fresh && ax_nft_install(g->nft, err) < 0)) {
			egress_free(g);
			return -1;
		}
	}
	if (ax_netns_call(netns_fd, make_sockets, g) < 0) {
		rc = errno;
		egress_free(g);
		return ax_fail(err, AX_CODE_RUNTIME, "cannot start the sandbox's resolver on 127.0.0.1:%d: %s",
			       DNS_PORT, strerror(rc));
	}
	rc = pipe2(g->stop, O_CLOEXEC) < 0 ? errno : pthread_create(&g->thread, NULL, serve, g);
	if (rc != 0) {
		egress_free(g);
		return ax_fail(err, AX_CODE_RUNTIME, "cannot start the sandbox's resolver: %s", strerror(rc));
	}
	g->started = true;
	pthread_mutex_lock(&set->mu);
	{
		egress **old = find(set, id), *gone = *old;

		/* A restarted resolver replaces the one before. */
		if (gone)
			*old = gone->next;
		g->next = set->list;
		set->list = g;
		pthread_mutex_unlock(&set->mu);
		if (gone)
			egress_free(gone);
	}
	return 0;
}

int ax_egress_set_policy(ax_egresses *set, const char *id, const json_t *policy, ax_error *err)
{
	json_t *copy = json_deep_copy(policy);
	ax_dns_addr *keep = NULL;
	egress *g;
	size_t k = 0;
	int rc = 0;

	if (!copy)
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	pthread_mutex_lock(&set->mu);
	g = *find(set, id);
	if (!g) {
		pthread_mutex_unlock(&set->mu);
		json_decref(copy);
		return ax_fail(err, AX_CODE_RUNTIME, "sandbox %s has no resolver running", id);
	}
	pthread_mutex_lock(&g->mu);
	json_decref(g->policy);
	g->policy = copy;
	if (g->nft) {
		/* Only what names still allowed resolved to stays. */
		keep = malloc((g->nknown + 1) * sizeof *keep);
		for (size_t i = 0; keep && i < g->nknown; i++)
			if (ax_policy_allows(g->policy, g->known[i].name)) {
				keep[k] = g->known[i].addr;
				g->known[k++] = g->known[i];
			}
		g->nknown = keep ? k : 0;
		rc = ax_nft_allow(g->nft, keep, keep ? (int)k : 0, true, err);
		free(keep);
	}
	pthread_mutex_unlock(&g->mu);
	pthread_mutex_unlock(&set->mu);
	return rc;
}

void ax_egress_stop(ax_egresses *set, const char *id)
{
	egress **p, *g;

	if (!set)
		return;
	pthread_mutex_lock(&set->mu);
	p = find(set, id);
	g = *p;
	if (g)
		*p = g->next;
	pthread_mutex_unlock(&set->mu);
	if (g)
		egress_free(g);
}

void ax_egresses_free(ax_egresses *set)
{
	if (!set)
		return;
	while (set->list) {
		egress *g = set->list;

		set->list = g->next;
		egress_free(g);
	}
	pthread_mutex_destroy(&set->mu);
	free(set->hosts_file);
	free(set);
}
