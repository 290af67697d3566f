/* Test helper: a sandbox's seccomp filter, for trying it by hand.
 *
 *   seccomp_dump [--nesting]                 > FILE   (then bwrap --seccomp 3 ... 3<FILE)
 *   seccomp_dump [--nesting] CMD [ARG...]             (CMD runs with the filter's fd on 3)
 *
 * The program is ax_seccomp_filter_fd()'s, byte for byte. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine/runtime/seccomp_filter.h"

int main(int argc, char **argv)
{
	bool nesting = argc > 1 && strcmp(argv[1], "--nesting") == 0;
	char **cmd = argv + 1 + nesting;
	ax_error err = { 0 };
	int fd = ax_seccomp_filter_fd(nesting, &err);
	char buf[4096];
	ssize_t n;

	if (fd < 0) {
		fprintf(stderr, "seccomp_dump: %s\n", err.message);
		return 1;
	}
	if (*cmd) {
		/* dup2 leaves a copy without close-on-exec, but not fd itself. */
		if (fd == 3 ? fcntl(fd, F_SETFD, 0) < 0 : dup2(fd, 3) < 0) {
			fprintf(stderr, "seccomp_dump: dup2: %s\n", strerror(errno));
			return 1;
		}
		execvp(cmd[0], cmd);
		fprintf(stderr, "seccomp_dump: %s: %s\n", cmd[0], strerror(errno));
		return 127;
	}
	while ((n = read(fd, buf, sizeof buf)) > 0)
		if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
			return 1;
	return n < 0 || fflush(stdout) != 0;
}
