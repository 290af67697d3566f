/* rm -rf of a sandbox's state. The tree was written by the sandbox, so it can
 * hold symlinks to anything, whiteouts, and be arbitrarily deep: nothing is
 * followed, nothing on another file system is touched, and the walk holds
 * one directory fd at a time (climbing back with "..", checked against the
 * remembered device and inode) instead of one per level. */
#include "engine/runtime/runtime_internal.h"
#include "engine/runtime/disk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct frame {
	char *name;   /* in the parent; NULL for the top */
	dev_t dev;
	ino_t ino;
} frame;

typedef struct walk {
	const char *top;
	frame *stack;
	size_t depth, cap;
	int fd;
	dev_t dev;     /* the state dir's file system */
} walk;

static int fail_at(const walk *w, const char *name, int e, ax_error *err)
{
	const char *leaf = name ? name : (w->depth ? w->stack[w->depth].name : "");

	return ax_fail(err, AX_CODE_IO, "cannot remove %s%s%s: %s", w->top, w->depth ? "/.../" : "/",
		       leaf, strerror(e));
}

/* Unlink the non-directories of the current directory; return the name of
 * one subdirectory (malloc'd) or NULL when none is left. */
static int scan(walk *w, char **subdir, ax_error *err)
{
	int dfd = dup(w->fd);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *e;

	*subdir = NULL;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return fail_at(w, NULL, errno, err);
	}
	rewinddir(d);
	while ((e = readdir(d))) {
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (fstatat(w->fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue;
			closedir(d);
			return fail_at(w, e->d_name, errno, err);
		}
		if (S_ISDIR(st.st_mode)) {
			if (st.st_dev != w->dev) {
				closedir(d);
				return fail_at(w, e->d_name, EXDEV, err);
			}
			*subdir = strdup(e->d_name);
			closedir(d);
			return *subdir ? 0 : fail_at(w, e->d_name, ENOMEM, err);
		}
		if (unlinkat(w->fd, e->d_name, 0) < 0 && errno != ENOENT) {
			closedir(d);
			return fail_at(w, e->d_name, errno, err);
		}
	}
	closedir(d);
	return 0;
}

static int descend(walk *w, char *name, ax_error *err)
{
	int fd = openat(w->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0 || st.st_dev != w->dev) {
		int e = fd < 0 ? errno : EXDEV;

		if (fd >= 0)
			close(fd);
		fail_at(w, name, e, err);
		free(name);
		return -1;
	}
	if (w->depth + 2 > w->cap) {
		size_t cap = w->cap * 2;
		frame *grown = realloc(w->stack, cap * sizeof *grown);

		if (!grown) {
			close(fd);
			free(name);
			return fail_at(w, NULL, ENOMEM, err);
		}
		w->stack = grown;
		w->cap = cap;
	}
	w->depth++;
	w->stack[w->depth] = (frame){ name, st.st_dev, st.st_ino };
	close(w->fd);
	w->fd = fd;
	return 0;
}

/* The current directory is empty: go up and remove it. */
static int ascend(walk *w, ax_error *err)
{
	int pfd = openat(w->fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	const frame *parent = &w->stack[w->depth - 1];
	struct stat st;

	if (pfd < 0)
		return fail_at(w, NULL, errno, err);
	if (fstat(pfd, &st) < 0 || st.st_dev != parent->dev || st.st_ino != parent->ino) {
		close(pfd);
		return fail_at(w, NULL, ESTALE, err);
	}
	close(w->fd);
	w->fd = pfd;
	if (unlinkat(w->fd, w->stack[w->depth].name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return fail_at(w, NULL, errno, err);
	free(w->stack[w->depth].name);
	w->depth--;
	return 0;
}

int ax_rt_remove_state(const char *state_dir, ax_error *err)
{
	walk w = { state_dir, NULL, 0, 16, -1, 0 };
	struct stat st;
	int rc = 0;

	if (lstat(state_dir, &st) < 0)
		return errno == ENOENT ? 0 : ax_fail(err, AX_CODE_IO, "%s: %s", state_dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return ax_fail(err, AX_CODE_IO, "not removing %s: not a directory", state_dir);
	w.fd = open(state_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	w.stack = malloc(w.cap * sizeof *w.stack);
	if (w.fd < 0 || !w.stack || fstat(w.fd, &st) < 0) {
		rc = ax_fail(err, AX_CODE_IO, "cannot open %s: %s", state_dir, strerror(w.stack ? errno : ENOMEM));
		goto out;
	}
	w.dev = st.st_dev;
	w.stack[0] = (frame){ NULL, st.st_dev, st.st_ino };
	for (;;) {
		char *sub;

		if ((rc = scan(&w, &sub, err)) < 0)
			break;
		if (sub)
			rc = descend(&w, sub, err);
		else if (w.depth)
			rc = ascend(&w, err);
		else
			break;
		if (rc < 0)
			break;
	}
	if (rc == 0 && rmdir(state_dir) < 0 && errno != ENOENT)
		rc = ax_fail(err, AX_CODE_IO, "cannot remove %s: %s", state_dir, strerror(errno));
out:
	for (size_t i = 1; w.stack && i <= w.depth; i++)
		free(w.stack[i].name);
	free(w.stack);
	if (w.fd >= 0)
		close(w.fd);
	return rc;
}

int ax_rt_remove_sandbox(const char *state_dir, ax_error *err)
{
	if (ax_disk_release(state_dir, err) < 0)
		return -1;
	return ax_rt_remove_state(state_dir, err);
}
