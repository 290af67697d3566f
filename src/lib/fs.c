#include "lib/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ax_read_file(const char *path, char **data, size_t *len, ax_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;
	size_t cap = 0, used = 0;

	if (fd < 0) {
		if (errno == ENOENT)
			return 1;
		return ax_fail(err, AX_CODE_IO, "cannot open %s: %s", path, strerror(errno));
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return ax_fail(err, AX_CODE_IO, "cannot read %s: is a directory", path);
	}
	for (;;) {
		ssize_t n;

		if (cap - used < 4096) {
			char *grown;

			cap = cap ? cap * 2 : 8192;
			grown = realloc(buf, cap + 1);
			if (!grown) {
				free(buf);
				close(fd);
				return ax_fail(err, AX_CODE_IO, "out of memory reading %s", path);
			}
			buf = grown;
		}
		n = read(fd, buf + used, cap - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			free(buf);
			close(fd);
			return ax_fail(err, AX_CODE_IO, "cannot read %s: %s", path, strerror(e));
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	buf[used] = '\0';
	*data = buf;
	if (len)
		*len = used;
	return 0;
}

int ax_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void fsync_parent(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int fd;

	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else if (slash == path)
		snprintf(dir, sizeof dir, "/");
	else
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

static int write_replace(const char *path, const void *data, size_t len, mode_t mode, bool durable, ax_error *err)
{
	size_t n = strlen(path);
	char *tmp = malloc(n + 16);
	int fd, e;

	if (!tmp)
		return ax_fail(err, AX_CODE_IO, "out of memory");
	/* The temporary file sits beside the target so rename() stays on one file system. */
	snprintf(tmp, n + 16, "%s.tmp.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		e = errno;
		free(tmp);
		return ax_fail(err, AX_CODE_IO, "cannot write %s: %s", path, strerror(e));
	}
	if (fchmod(fd, mode) < 0 || ax_write_all(fd, data, len) < 0 || (durable && fsync(fd) < 0)) {
		e = errno;
		close(fd);
		unlink(tmp);
		free(tmp);
		return ax_fail(err, AX_CODE_IO, "cannot write %s: %s", path, strerror(e));
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		e = errno;
		unlink(tmp);
		free(tmp);
		return ax_fail(err, AX_CODE_IO, "cannot write %s: %s", path, strerror(e));
	}
	free(tmp);
	if (durable)
		fsync_parent(path);
	return 0;
}

int ax_write_file_atomic(const char *path, const void *data, size_t len, mode_t mode, ax_error *err)
{
	return write_replace(path, data, len, mode, true, err);
}

int ax_write_file_replace(const char *path, const void *data, size_t len, mode_t mode, ax_error *err)
{
	return write_replace(path, data, len, mode, false, err);
}

int ax_mkdir_p(const char *path, mode_t mode, ax_error *err)
{
	char buf[PATH_MAX];
	char *p;

	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
		return ax_fail(err, AX_CODE_IO, "path too long: %s", path);
	for (p = buf + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char saved = *p;
			struct stat st;

			*p = '\0';
			if (mkdir(buf, mode) < 0 && errno != EEXIST)
				return ax_fail(err, AX_CODE_IO, "cannot create directory %s: %s",
					       buf, strerror(errno));
			if (stat(buf, &st) == 0 && !S_ISDIR(st.st_mode))
				return ax_fail(err, AX_CODE_IO, "cannot create directory %s: %s",
					       buf, strerror(ENOTDIR));
			*p = saved;
			if (!saved)
				break;
		}
	}
	return 0;
}

int ax_mkdir_parent(const char *path, mode_t mode, ax_error *err)
{
	char buf[PATH_MAX];
	char *slash;

	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
		return ax_fail(err, AX_CODE_IO, "path too long: %s", path);
	slash = strrchr(buf, '/');
	if (!slash || slash == buf)
		return 0;
	*slash = '\0';
	return ax_mkdir_p(buf, mode, err);
}

char *ax_path_join(const char *dir, const char *name)
{
	size_t a = strlen(dir);
	char *s;

	if (asprintf(&s, "%s%s%s", dir, a && dir[a - 1] != '/' ? "/" : "", name) < 0)
		return NULL;
	return s;
}
