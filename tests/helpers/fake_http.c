/* Test helper: a scripted HTTP/1.1 server for fault tests.
 *
 *   fake_http [--log FILE] [--portfile FILE] [--lifetime SECONDS] STEP...
 *
 * Binds 127.0.0.1:0, prints the port on stdout (and writes it to --portfile),
 * then answers one request per connection, in order, with the next STEP; the
 * last STEP repeats. A STEP is:
 *   STATUS[:BODY]  answer STATUS with BODY (JSON content type), then close;
 *                  "{PORT}" in BODY becomes the server's port
 *   hang           read the request and never answer (the connection stays open)
 *   close          read the request and close without answering
 *   short:N:M      answer 200 announcing a body of N bytes, send M of them
 *                  ('x'), then close (a download cut off mid-body)
 * Each request is appended to --log as "METHOD TARGET" (one line), so a test
 * can count attempts. The server exits after --lifetime seconds (default 120)
 * so it never outlives a test that forgot it. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_HELD 64

static void die(const char *what)
{
	fprintf(stderr, "fake_http: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Read one request (headers and a Content-Length body) from FD into BUF;
 * the request line is left NUL-terminated at BUF. Returns -1 if the client
 * went away or took longer than 10 s. */
static int read_request(int fd, char *buf, size_t cap)
{
	size_t len = 0;
	long body = -1;
	char *end = NULL;

	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t n;

		if (end) {
			size_t head = (size_t)(end + 4 - buf);

			if (body < 0) {
				const char *cl = strcasestr(buf, "\r\nContent-Length:");

				body = cl ? strtol(cl + 17, NULL, 10) : 0;
			}
			if (len >= head + (size_t)body || len == cap - 1)
				break;
		}
		if (poll(&p, 1, 10000) <= 0)
			return -1;
		n = read(fd, buf + len, cap - 1 - len);
		if (n <= 0)
			return -1;
		len += (size_t)n;
		buf[len] = '\0';
		if (!end)
			end = strstr(buf, "\r\n\r\n");
		if (!end && len == cap - 1)
			return -1;
	}
	*strstr(buf, "\r\n") = '\0';
	return 0;
}

static void write_all(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, s, n);

		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/* STEP's body with every "{PORT}" replaced by PORT (so an endpoint answer
 * can point back at this server); malloc'd. */
static char *body_of(const char *step, int port)
{
	const char *b = strchr(step, ':'), *at;
	char *out, *o;

	b = b ? b + 1 : "";
	out = malloc(strlen(b) * 2 + 16);
	if (!out)
		die("malloc");
	for (o = out; (at = strstr(b, "{PORT}")); b = at + 6) {
		memcpy(o, b, (size_t)(at - b));
		o += at - b;
		o += sprintf(o, "%d", port);
	}
	strcpy(o, b);
	return out;
}

static void answer_short(int fd, const char *spec)
{
	char head[256], chunk[65536];
	char *colon;
	unsigned long long announced = strtoull(spec, &colon, 10), sent = *colon == ':' ? strtoull(colon + 1, NULL, 10) : 0;
	int n = snprintf(head, sizeof head,
			 "HTTP/1.1 200 Scripted\r\nContent-Type: application/octet-stream\r\nContent-Length: %llu\r\n"
			 "Connection: close\r\n\r\n",
			 announced);

	memset(chunk, 'x', sizeof chunk);
	write_all(fd, head, (size_t)n);
	while (sent) {
		size_t k = sent < sizeof chunk ? (size_t)sent : sizeof chunk;

		write_all(fd, chunk, k);
		sent -= k;
	}
}

static void answer(int fd, const char *step, int port)
{
	char head[256];
	char *body = body_of(step, port);
	long status = strtol(step, NULL, 10);
	int n;

	n = snprintf(head, sizeof head,
		     "HTTP/1.1 %ld Scripted\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
		     "Connection: close\r\n\r\n",
		     status, strlen(body));
	write_all(fd, head, (size_t)n);
	write_all(fd, body, strlen(body));
	free(body);
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa;
	socklen_t slen = sizeof sa;
	const char *log_path = NULL, *port_path = NULL;
	long lifetime = 120;
	int held[MAX_HELD], nheld = 0, lfd, i = 1, step;
	time_t deadline;

	for (; i + 1 < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
		if (strcmp(argv[i], "--log") == 0)
			log_path = argv[i + 1];
		else if (strcmp(argv[i], "--portfile") == 0)
			port_path = argv[i + 1];
		else if (strcmp(argv[i], "--lifetime") == 0)
			lifetime = strtol(argv[i + 1], NULL, 10);
		else
			break;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: fake_http [--log FILE] [--portfile FILE] [--lifetime S] STEP...\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		die("socket");
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(lfd, 16) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&sa, &slen) < 0)
		die("listen");
	if (port_path) {
		FILE *f = fopen(port_path, "w");

		if (!f)
			die(port_path);
		fprintf(f, "%d\n", ntohs(sa.sin_port));
		fclose(f);
	}
	printf("%d\n", ntohs(sa.sin_port));
	fflush(stdout);
	deadline = time(NULL) + lifetime;
	for (step = i; time(NULL) < deadline;) {
		struct pollfd p = { lfd, POLLIN, 0 };
		char req[65536];
		int fd;

		if (poll(&p, 1, 500) <= 0)
			continue;
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			continue;
		if (read_request(fd, req, sizeof req) < 0) {
			close(fd);
			continue;
		}
		if (log_path) {
			FILE *f = fopen(log_path, "a");

			if (f) {
				/* "GET /v1/x HTTP/1.1" -> "GET /v1/x" */
				char *v = strrchr(req, ' ');

				if (v && v != strchr(req, ' '))
					*v = '\0';
				fprintf(f, "%s\n", req);
				fclose(f);
			}
		}
		if (strcmp(argv[step], "hang") == 0 && nheld < MAX_HELD)
			held[nheld++] = fd;
		else if (strcmp(argv[step], "close") == 0 || strcmp(argv[step], "hang") == 0)
			close(fd);
		else if (strncmp(argv[step], "short:", 6) == 0) {
			answer_short(fd, argv[step] + 6);
			close(fd);
		} else {
			answer(fd, argv[step], ntohs(sa.sin_port));
			shutdown(fd, SHUT_WR);
			close(fd);
		}
		if (step + 1 < argc)
			step++;
	}
	while (nheld > 0)
		close(held[--nheld]);
	return 0;
}
