/* Running a helper program and keeping its last line of output, which is
 * where cp and mke2fs say what went wrong. */
#include "engine/runtime/tool.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The last line read from FD until EOF, in OUT. */
static void last_line(int fd, char *out, size_t size)
{
	char buf[4096];
	size_t used = 0;
	ssize_t n;

	out[0] = '\0';
	while ((n = read(fd, buf + used, sizeof buf - 1 - used)) > 0 || (n < 0 && errno == EINTR)) {
		if (n < 0)
			continue;
		used += (size_t)n;
		if (used == sizeof buf - 1) {
			/* Keep the tail only. */
			memmove(buf, buf + used / 2, used - used / 2);
			used -= used / 2;
		}
	}
	buf[used] = '\0';
	while (used && buf[used - 1] == '\n')
		buf[--used] = '\0';
	{
		const char *nl = strrchr(buf, '\n'), *line = nl ? nl + 1 : buf;
		size_t len = strlen(line);

		if (len >= size)
			len = size - 1;
		memcpy(out, line, len);
		out[len] = '\0';
	}
}

int ax_tool_run(const char *path, char *const argv[], const char *what, ax_error *err)
{
	posix_spawn_file_actions_t fa;
	int pipefd[2], status, rc;
	char msg[512];
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return ax_fail(err, AX_CODE_IO, "%s failed: %s", what, strerror(errno));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
	posix_spawn_file_actions_adddup2(&fa, 2, 1);
	rc = posix_spawn(&pid, path, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (rc != 0) {
		close(pipefd[0]);
		return ax_fail(err, AX_CODE_IO, "cannot run %s: %s", path, strerror(rc));
	}
	last_line(pipefd[0], msg, sizeof msg);
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return ax_fail(err, AX_CODE_IO, "cannot wait for %s: %s", path, strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return ax_fail(err, AX_CODE_IO, "%s failed: %s", what,
			       msg[0] ? msg : "the program ended abnormally");
	return 0;
}
