/* Test helper: stand in for the engine's socket set-up.
 *
 *   listen_fd PORTFILE [--token TOKEN] CMD [ARG...]
 *
 * Binds 127.0.0.1:0, listens, writes the port to PORTFILE, then execs CMD
 * with the socket on fd 3 and, with --token, a pipe holding TOKEN (already
 * closed for writing) on fd 4. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "listen_fd: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Put FD on TARGET, clearing close-on-exec. */
static void place(int fd, int target)
{
	if (fd == target) {
		if (fcntl(fd, F_SETFD, 0) < 0)
			die("fcntl");
		return;
	}
	if (dup2(fd, target) < 0)
		die("dup2");
	close(fd);
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof sa;
	const char *token = NULL;
	int s, tp[2] = { -1, -1 }, argi = 2;
	char tmp[4096];
	FILE *f;

	if (argc >= 4 && strcmp(argv[2], "--token") == 0) {
		token = argv[3];
		argi = 4;
	}
	if (argc <= argi) {
		fprintf(stderr, "usage: listen_fd PORTFILE [--token TOKEN] CMD [ARG...]\n");
		return 2;
	}
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0)
		die("socket");
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(s, 128) < 0 ||
	    getsockname(s, (struct sockaddr *)&sa, &len) < 0)
		die("bind");
	if (token) {
		size_t n = strlen(token);

		if (pipe(tp) < 0)
			die("pipe");
		if (write(tp[1], token, n) != (ssize_t)n || write(tp[1], "\n", 1) != 1)
			die("write");
		close(tp[1]);
	}
	/* Move both out of the way first so placing one cannot clobber the other. */
	s = fcntl(s, F_DUPFD, 10);
	if (s < 0)
		die("fcntl");
	if (token) {
		int r = fcntl(tp[0], F_DUPFD, 10);

		if (r < 0)
			die("fcntl");
		close(tp[0]);
		tp[0] = r;
	}
	place(s, 3);
	if (token)
		place(tp[0], 4);
	/* The port file appears last and whole (renamed into place), when the
	 * socket already accepts connections. */
	if (snprintf(tmp, sizeof tmp, "%s.tmp", argv[1]) >= (int)sizeof tmp)
		die("port file name");
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%u\n", (unsigned)ntohs(sa.sin_port)) < 0 || fclose(f) != 0 ||
	    rename(tmp, argv[1]) < 0)
		die(argv[1]);
	execvp(argv[argi], argv + argi);
	die(argv[argi]);
	return 1;
}
