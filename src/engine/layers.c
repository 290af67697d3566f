/*
 * Captured layers: a checkpoint's copy of a sandbox's writable overlay
 * layer, and its size on disk.
 *
 * The copy is made in process (layer_copy.c), which keeps what cp -a keeps
 * without cp's start-up; a tree so deep that it runs the engine out of fds
 * is copied again by coreutils' `cp -a`, whose walk keeps only a few.
 */
#include "engine.h"
#include "layer_copy.h"
#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CP_PATH "/bin/cp"

extern char **environ;

/* Keep the last line cp wrote to stderr for the error message. */
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

static int cp_a(const char *src, const char *dst, ax_error *err)
{
	char *const argv[] = { (char *)"cp", (char *)"-a", (char *)"--reflink=auto", (char *)"--",
			       (char *)src, (char *)dst, NULL };
	posix_spawn_file_actions_t fa;
	int pipefd[2], status, rc;
	char msg[512];
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return ax_fail(err, AX_EXIT_FAILURE, "IO", "cannot copy the layer: %s", strerror(errno));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
	posix_spawn_file_actions_adddup2(&fa, 2, 1);
	rc = posix_spawn(&pid, CP_PATH, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (rc != 0) {
		close(pipefd[0]);
		return ax_fail(err, AX_EXIT_FAILURE, "IO", "cannot run %s: %s", CP_PATH, strerror(rc));
	}
	last_line(pipefd[0], msg, sizeof msg);
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return ax_fail(err, AX_EXIT_FAILURE, "IO", "cannot wait for cp: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return ax_fail(err, AX_EXIT_FAILURE, "IO", "copying the layer failed: %s",
			       msg[0] ? msg : "cp ended abnormally");
	return 0;
}

/* What cp -a made, as the in-process copy counts it. */
static long long layer_size(const char *dir)
{
	char *const paths[] = { (char *)dir, NULL };
	FTS *fts = fts_open(paths, FTS_PHYSICAL | FTS_XDEV | FTS_NOCHDIR, NULL);
	FTSENT *ent;
	long long total = 0;
	int failed = 0;

	if (!fts)
		return -1;
	while ((ent = fts_read(fts))) {
		const struct stat *st = ent->fts_statp;

		if (ent->fts_info == FTS_DP)
			continue;
		if (ent->fts_info == FTS_NS || ent->fts_info == FTS_DNR || ent->fts_info == FTS_ERR) {
			failed = 1;
			continue;
		}
		/* A hard-linked file counts once across its names. */
		total += (long long)st->st_blocks * 512 /
			 (st->st_nlink > 1 && !S_ISDIR(st->st_mode) ? (long long)st->st_nlink : 1);
	}
	fts_close(fts);
	return failed ? -1 : total;
}

int ax_layer_copy(const char *src, const char *dst, long long *bytes, ax_error *err)
{
	int rc = ax_layer_copy_tree(src, dst, AX_COPY_SKIP_EMPTY_TOP, bytes, err);

	if (rc != AX_COPY_OUT_OF_FDS)
		return rc;
	ax_error_clear(err);
	if (ax_rt_remove_state(dst, err) < 0 || cp_a(src, dst, err) < 0)
		return -1;
	*bytes = layer_size(dst);
	if (*bytes < 0)
		*bytes = 0;
	return 0;
}
