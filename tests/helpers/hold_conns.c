/* Test helper: hold many idle or slow TCP connections to a loopback port, as
 * any local user could, without credentials (tests/cli/listeners.sh).
 *
 *   hold_conns --port PORT [--idle N] [--slow N] [--refill] [--status FILE]
 *              [--lifetime SECONDS]
 *
 * Opens N connections to 127.0.0.1:PORT that never send a byte (--idle) and
 * N that send the start of a request header, then one more header line every
 * second, never finishing it (--slow, a "slowloris"). With --refill, each
 * connection the server closes is opened again at once: a peer that keeps N
 * connections open for as long as it can. About every 100 ms FILE is
 * replaced with:
 *   open IDLE SLOW           connections established and not closed
 *   closed IDLE SLOW         connections the server closed so far
 *   slow_max_ms MS           the longest a slow connection lived before the
 *                            server closed it
 *   connects N               connections opened so far
 * Ends on SIGTERM or SIGINT, or after --lifetime seconds (default 120) so it
 * never outlives a test that forgot it, closing every connection. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum kind { IDLE, SLOW };
enum state { FREE, CONNECTING, OPEN };

struct conn {
	enum kind kind;
	enum state state;
	long long opened_ms, next_drip_ms;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void die(const char *what)
{
	fprintf(stderr, "hold_conns: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int open_conn(const struct sockaddr_in *sa)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if (connect(fd, (const struct sockaddr *)sa, sizeof *sa) < 0 && errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	return fd;
}

static void write_status(const char *path, const unsigned open[2], const unsigned closed[2], long long slow_max,
			 unsigned long connects)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		die(tmp);
	fprintf(f, "open %u %u\nclosed %u %u\nslow_max_ms %lld\nconnects %lu\n", open[IDLE], open[SLOW], closed[IDLE],
		closed[SLOW], slow_max, connects);
	if (fclose(f) != 0 || rename(tmp, path) < 0)
		die(path);
}

int main(int argc, char **argv)
{
	static const char head[] = "GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n";
	static const char drip[] = "X-Slow: 1\r\n";
	unsigned n[2] = { 0, 0 }, open[2] = { 0, 0 }, closed[2] = { 0, 0 }, total, i;
	unsigned long connects = 0;
	long long lifetime_ms = 120000, start, last_status = 0, slow_max = 0;
	const char *status = NULL;
	int refill = 0, refused = 0, port = 0;
	struct sockaddr_in sa;
	struct pollfd *p;
	struct conn *c;
	struct rlimit rl;
	struct sigaction sact;

	for (i = 1; i < (unsigned)argc; i++) {
		const char *a = argv[i], *v = i + 1 < (unsigned)argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--refill") == 0) {
			refill = 1;
			continue;
		}
		if (!v) {
			fprintf(stderr, "hold_conns: %s needs a value\n", a);
			return 2;
		}
		i++;
		if (strcmp(a, "--port") == 0)
			port = atoi(v);
		else if (strcmp(a, "--idle") == 0)
			n[IDLE] = (unsigned)atoi(v);
		else if (strcmp(a, "--slow") == 0)
			n[SLOW] = (unsigned)atoi(v);
		else if (strcmp(a, "--status") == 0)
			status = v;
		else if (strcmp(a, "--lifetime") == 0)
			lifetime_ms = atoll(v) * 1000;
		else {
			fprintf(stderr, "hold_conns: unknown option %s\n", a);
			return 2;
		}
	}
	if (port <= 0 || port > 65535) {
		fprintf(stderr, "hold_conns: --port is required\n");
		return 2;
	}
	total = n[IDLE] + n[SLOW];
	/* As many descriptors as the connections need, if the hard limit allows. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < total + 16 && rl.rlim_max >= total + 16) {
		rl.rlim_cur = total + 16;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			die("setrlimit");
	}
	memset(&sact, 0, sizeof sact);
	sact.sa_handler = on_signal;
	sigaction(SIGTERM, &sact, NULL);
	sigaction(SIGINT, &sact, NULL);
	signal(SIGPIPE, SIG_IGN);
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons((unsigned short)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	p = calloc(total ? total : 1, sizeof *p);
	c = calloc(total ? total : 1, sizeof *c);
	if (!p || !c)
		die("calloc");
	for (i = 0; i < total; i++) {
		c[i].kind = i < n[IDLE] ? IDLE : SLOW;
		p[i].fd = -1;
	}
	start = now_ms();
	while (!stop && now_ms() - start < lifetime_ms) {
		long long now = now_ms();

		for (i = 0; i < total; i++) {
			if (c[i].state != FREE)
				continue;
			/* Each slot is opened once, or again and again with --refill. */
			if (!refill && c[i].opened_ms)
				continue;
			p[i].fd = open_conn(&sa);
			if (p[i].fd < 0)
				die("connect");
			c[i].state = CONNECTING;
			c[i].opened_ms = now;
			connects++;
		}
		for (i = 0; i < total; i++) {
			p[i].events = c[i].state == CONNECTING ? POLLOUT : c[i].state == OPEN ? POLLIN : 0;
			p[i].revents = 0;
		}
		if (poll(p, total, 100) < 0 && errno != EINTR)
			die("poll");
		now = now_ms();
		for (i = 0; i < total; i++) {
			struct conn *x = &c[i];
			char buf[512];
			int gone = 0;

			if (x->state == CONNECTING && p[i].revents) {
				int e = 0;
				socklen_t el = sizeof e;

				if (getsockopt(p[i].fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0 || e) {
					/* Refused (nobody listens, or a full backlog): try
					 * again, after a pause so as not to spin. */
					close(p[i].fd);
					p[i].fd = -1;
					x->state = FREE;
					x->opened_ms = refill ? x->opened_ms : 0;
					refused = 1;
					continue;
				}
				x->state = OPEN;
				x->opened_ms = now;
				open[x->kind]++;
				if (x->kind == SLOW) {
					gone = send(p[i].fd, head, sizeof head - 1, MSG_NOSIGNAL) < 0;
					x->next_drip_ms = now + 1000;
				}
			} else if (x->state == OPEN && p[i].revents) {
				ssize_t r = recv(p[i].fd, buf, sizeof buf, 0);

				gone = r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR);
			}
			if (!gone && x->state == OPEN && x->kind == SLOW && now >= x->next_drip_ms) {
				gone = send(p[i].fd, drip, sizeof drip - 1, MSG_NOSIGNAL) < 0;
				x->next_drip_ms = now + 1000;
			}
			if (gone) {
				closed[x->kind]++;
				open[x->kind]--;
				if (x->kind == SLOW && now - x->opened_ms > slow_max)
					slow_max = now - x->opened_ms;
				close(p[i].fd);
				p[i].fd = -1;
				x->state = FREE;
			}
		}
		if (refused) {
			usleep(10 * 1000);
			refused = 0;
		}
		if (status && now - last_status >= 100) {
			write_status(status, open, closed, slow_max, connects);
			last_status = now;
		}
	}
	for (i = 0; i < total; i++)
		if (p[i].fd >= 0)
			close(p[i].fd);
	if (status)
		write_status(status, (const unsigned[2]){ 0, 0 }, closed, slow_max, connects);
	free(p);
	free(c);
	return 0;
}
