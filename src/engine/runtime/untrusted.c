/* Reading files a sandbox controls: see untrusted.h.
 *
 * openat2 does the resolution in the kernel: RESOLVE_IN_ROOT keeps ".." and
 * absolute names below the root, RESOLVE_NO_SYMLINKS refuses a symlink in
 * any component (the last one included), RESOLVE_NO_MAGICLINKS refuses
 * /proc-style links and RESOLVE_NO_XDEV any mount crossing. There is no
 * fallback: without openat2 (Linux < 5.6) nothing is read. */
#include "engine/runtime/untrusted.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

#define RESOLVE_STRICT (RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV)

static int open_below(int root, const char *rel, int flags)
{
	struct open_how how;
	long fd;

	memset(&how, 0, sizeof how);
	how.flags = (unsigned long long)(flags | O_CLOEXEC | O_NOFOLLOW);
	how.resolve = RESOLVE_STRICT;
	do
		fd = syscall(SYS_openat2, root, rel, &how, sizeof how);
	while (fd < 0 && errno == EINTR);
	return (int)fd;
}

int ax_untrusted_root(const char *path)
{
	return open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

static const char *why(int e)
{
	switch (e) {
	case ELOOP:
		return "a symlink is on the way";
	case EXDEV:
		return "it leaves the sandbox's file system";
	case EAGAIN:
		return "it is busy (leased)";
	default:
		return strerror(e);
	}
}

/* Read at most MAX + 1 bytes of FD: one more tells a file that grew past
 * MAX after the fstat from one that is exactly MAX. */
static ssize_t read_capped(int fd, char *buf, size_t max)
{
	size_t used = 0;

	while (used <= max) {
		ssize_t n = read(fd, buf + used, max + 1 - used);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		used += (size_t)n;
	}
	return (ssize_t)used;
}

int ax_untrusted_read(int root, const char *rel, size_t max, char **data, size_t *len, ax_error *err)
{
	struct stat st;
	char *buf = NULL;
	ssize_t n;
	int fd, rc = -1;

	*data = NULL;
	*len = 0;
	/* O_NONBLOCK: opening a FIFO does not wait for a writer, and opening a
	 * file a sandbox process holds a write lease on fails (EAGAIN) instead
	 * of waiting for the lease to be given up. O_NOCTTY: a terminal never
	 * becomes the engine's. */
	fd = open_below(root, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		if (errno == ENOENT)
			return 1;
		return ax_fail(err, AX_CODE_UNTRUSTED, "not reading %s: %s", rel, why(errno));
	}
	if (fstat(fd, &st) < 0) {
		ax_fail(err, AX_CODE_UNTRUSTED, "cannot read %s: %s", rel, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		ax_fail(err, AX_CODE_UNTRUSTED, "not reading %s: not a regular file", rel);
	} else if ((unsigned long long)st.st_size > max) {
		ax_fail(err, AX_CODE_UNTRUSTED, "not reading %s: larger than %zu bytes", rel, max);
	} else if (!(buf = malloc(max + 2))) {
		ax_fail(err, AX_CODE_NOMEM, "out of memory");
	} else if ((n = read_capped(fd, buf, max)) < 0) {
		ax_fail(err, AX_CODE_UNTRUSTED, "cannot read %s: %s", rel, strerror(errno));
	} else if ((size_t)n > max) {
		ax_fail(err, AX_CODE_UNTRUSTED, "not reading %s: larger than %zu bytes", rel, max);
	} else {
		buf[n] = '\0';
		*data = buf;
		*len = (size_t)n;
		buf = NULL;
		rc = 0;
	}
	free(buf);
	close(fd);
	return rc;
}

mode_t ax_untrusted_type(const char *root_path, const char *rel)
{
	int root = ax_untrusted_root(root_path), fd;
	struct stat st;
	mode_t type = 0;

	if (root < 0)
		return 0;
	/* O_PATH: nothing is opened for reading, so not even a FIFO's or a
	 * device's open runs. */
	fd = open_below(root, rel, O_PATH);
	if (fd >= 0 && fstat(fd, &st) == 0)
		type = st.st_mode & S_IFMT;
	if (fd >= 0)
		close(fd);
	close(root);
	return type;
}
