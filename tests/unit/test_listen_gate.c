/* The servers' accept gate (listen_gate.h): when a header counts as whole,
 * and what the gate does with whole, idle, slow, oversized and surplus
 * connections, on a real loopback socket with small limits. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/listen_gate.h"
#include "lib/timeutil.h"

/* Long enough for a slow (valgrind) run to do each step well within it. */
#define HEADER_MS 1000

static bool whole(const char *s)
{
	return ax_gate_header_complete(s, strlen(s));
}

static void test_header_complete(void **state)
{
	(void)state;
	assert_true(whole("GET / HTTP/1.1\r\n\r\n"));
	assert_true(whole("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
	assert_true(whole("GET / HTTP/1.1\nHost: x\n\n"));
	assert_true(whole("GET / HTTP/1.1\r\nHost: x\n\r\n"));
	assert_true(whole("POST / HTTP/1.1\r\nContent-Length: 4\r\n\r\nbody"));
	/* Empty lines before the request line are skipped, not an end. */
	assert_true(whole("\r\n\nGET / HTTP/1.1\r\n\r\n"));
	assert_false(whole("\r\n\r\n"));
	assert_false(whole("\n\n\n"));
	assert_false(whole(""));
	assert_false(whole("GET / HTTP/1.1"));
	assert_false(whole("GET / HTTP/1.1\r\n"));
	assert_false(whole("GET / HTTP/1.1\r\nHost: x\r\n"));
	assert_false(whole("GET / HTTP/1.1\r\nHost: x\r\n\r"));
	/* A lone CR ends no line, for MHD either. */
	assert_false(whole("GET / HTTP/1.1\r\r\n"));
	assert_false(whole("GET / HTTP/1.1\r\nA: b\r\r\n"));
	/* A folded line is a line, not an end. */
	assert_false(whole("GET / HTTP/1.1\r\nA: b\r\n \r\n"));
	/* Lengths, not NUL bytes, delimit the bytes. */
	assert_false(ax_gate_header_complete("GET / HTTP/1.1\r\n\r\n", 16));
	assert_true(ax_gate_header_complete("GET / HTTP/1.1\r\n\r\nxyz", 18));
	assert_true(ax_gate_header_complete("GET /\0 HTTP/1.1\r\n\r\n", 19));
}

/* ---------- the gate on a loopback socket ---------- */

struct bench {
	int listen_fd;
	struct sockaddr_in addr;
	int passed[2];     /* a pipe: the pass callback writes each fd it gets */
	ax_gate *gate;
};

/* On the gate's thread, where cmocka's asserts must not run: a wrong
 * address shows as fd -1 to the test. */
static void on_pass(void *cls, int fd, const struct sockaddr *addr, socklen_t addrlen)
{
	struct bench *b = cls;
	int bad = -1;

	if (addrlen != sizeof(struct sockaddr_in) || addr->sa_family != AF_INET) {
		close(fd);
		fd = bad;
	}
	if (write(b->passed[1], &fd, sizeof fd) != (ssize_t)sizeof fd)
		close(fd);
}

static int setup(void **state)
{
	static const ax_gate_limits lim = { .max_held = 4, .header_ms = HEADER_MS, .header_max = 64 };
	struct bench *b = calloc(1, sizeof *b);
	socklen_t len = sizeof b->addr;
	ax_error err;

	assert_non_null(b);
	b->addr.sin_family = AF_INET;
	b->addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	b->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(b->listen_fd >= 0);
	assert_int_equal(bind(b->listen_fd, (struct sockaddr *)&b->addr, sizeof b->addr), 0);
	assert_int_equal(listen(b->listen_fd, 64), 0);
	assert_int_equal(getsockname(b->listen_fd, (struct sockaddr *)&b->addr, &len), 0);
	assert_int_equal(pipe(b->passed), 0);
	assert_int_equal(ax_gate_start(&b->gate, b->listen_fd, &lim, on_pass, b, &err), 0);
	*state = b;
	return 0;
}

static int teardown(void **state)
{
	struct bench *b = *state;
	struct pollfd p = { b->passed[0], POLLIN, 0 };
	int fd;

	ax_gate_stop(b->gate);
	while (poll(&p, 1, 0) == 1 && read(b->passed[0], &fd, sizeof fd) == (ssize_t)sizeof fd)
		close(fd);
	close(b->passed[0]);
	close(b->passed[1]);
	close(b->listen_fd);
	free(b);
	return 0;
}

static int client(const struct bench *b)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (const struct sockaddr *)&b->addr, sizeof b->addr), 0);
	return fd;
}

static void say(int fd, const char *s)
{
	assert_int_equal(send(fd, s, strlen(s), MSG_NOSIGNAL), (ssize_t)strlen(s));
}

/* The fd the gate passed on within MS, or -1. */
static int passed_fd(const struct bench *b, int ms)
{
	struct pollfd p = { b->passed[0], POLLIN, 0 };
	int fd;

	if (poll(&p, 1, ms) != 1 || read(b->passed[0], &fd, sizeof fd) != (ssize_t)sizeof fd)
		return -1;
	return fd;
}

/* Has the gate closed FD (EOF or reset) within MS? What it said before is
 * left in BUF. */
static bool closed_within(int fd, int ms, char *buf, size_t size)
{
	struct pollfd p = { fd, POLLIN, 0 };
	size_t got = 0;
	ssize_t n;

	memset(buf, 0, size);
	for (;;) {
		if (poll(&p, 1, ms) != 1)
			return false;
		n = recv(fd, buf + got, size - 1 - got, 0);
		if (n <= 0)
			return n == 0 || errno == ECONNRESET;
		got += (size_t)n;
	}
}

static void test_whole_header_passes(void **state)
{
	struct bench *b = *state;
	const char req[] = "GET /ping HTTP/1.1\r\nHost: x\r\n\r\n";
	char buf[128];
	int c = client(b), s;

	/* In two writes, as a slow client might. */
	say(c, "GET /ping HTTP/1.1\r\n");
	assert_int_equal(passed_fd(b, 100), -1);
	say(c, "Host: x\r\n\r\n");
	s = passed_fd(b, 1000);
	assert_true(s >= 0);
	/* Nothing was read: the server gets the request whole. */
	assert_int_equal(recv(s, buf, sizeof buf, 0), (ssize_t)strlen(req));
	assert_memory_equal(buf, req, strlen(req));
	close(s);
	close(c);
}

static void test_idle_and_slow_closed_at_deadline(void **state)
{
	struct bench *b = *state;
	int idle = client(b), slow = client(b), i;
	int64_t start = ax_mono_ms(), took;
	char buf[64];

	/* A byte every 100 ms does not buy time: the deadline runs from accept. */
	for (i = 0; i < 8; i++) {
		say(slow, "X");
		usleep(100 * 1000);
	}
	assert_true(closed_within(idle, 4 * HEADER_MS, buf, sizeof buf));
	assert_true(closed_within(slow, 4 * HEADER_MS, buf, sizeof buf));
	took = ax_mono_ms() - start;
	assert_true(took >= HEADER_MS - 50);
	assert_true(took < 3 * HEADER_MS);
	assert_int_equal(passed_fd(b, 0), -1);
	close(idle);
	close(slow);
}

static void test_oldest_makes_room(void **state)
{
	struct bench *b = *state;
	int c[5], i, s;
	char buf[64];

	for (i = 0; i < 4; i++)
		c[i] = client(b);
	usleep(50 * 1000);
	/* A fifth: the first goes, the others stay and the fifth is served. */
	c[4] = client(b);
	assert_true(closed_within(c[0], HEADER_MS / 2, buf, sizeof buf));
	for (i = 1; i < 4; i++)
		assert_false(closed_within(c[i], 0, buf, sizeof buf));
	say(c[4], "GET / HTTP/1.1\r\n\r\n");
	s = passed_fd(b, 1000);
	assert_true(s >= 0);
	close(s);
	for (i = 0; i < 5; i++)
		close(c[i]);
}

static void test_oversized_header_refused(void **state)
{
	struct bench *b = *state;
	char line[80], buf[256];
	int c = client(b);

	memset(line, 'a', sizeof line - 1);
	line[sizeof line - 1] = '\0';
	say(c, "GET / HTTP/1.1\r\nX: ");
	say(c, line);
	assert_true(closed_within(c, 1000, buf, sizeof buf));
	assert_true(strncmp(buf, "HTTP/1.1 431 ", 13) == 0);
	assert_int_equal(passed_fd(b, 0), -1);
	close(c);
}

static void test_hang_up_before_header(void **state)
{
	struct bench *b = *state;
	int c = client(b), d;

	say(c, "GET / HTTP/1.1\r\n");
	close(c);
	/* Whole but half-closed: still served (the client awaits the answer). */
	d = client(b);
	say(d, "GET / HTTP/1.1\r\n\r\n");
	shutdown(d, SHUT_WR);
	c = passed_fd(b, 1000);
	assert_true(c >= 0);
	close(c);
	assert_int_equal(passed_fd(b, 100), -1);
	close(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_complete),
		cmocka_unit_test_setup_teardown(test_whole_header_passes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_and_slow_closed_at_deadline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oldest_makes_room, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oversized_header_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hang_up_before_header, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
