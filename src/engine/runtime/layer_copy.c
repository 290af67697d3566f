/*
 * The checkpoint copy of a sandbox's writable overlay layer, in process.
 *
 * Why not `cp -a`: starting cp (exec, its loader, locale and SELinux
 * libraries) cost ~1.3 ms of every checkpoint, more than copying a 1 MiB
 * layer does; see docs/design.md "Checkpoint capture". This copy keeps what
 * an overlay layer is made of, as cp -a does: whiteouts (0:0 character
 * devices), opaque and other trusted.overlay.* directories and files
 * (xattrs, all of them), hard links, sparse files, symlinks, fifos and
 * devices, owners, modes and times; file data goes through FICLONE where
 * the file system shares extents, else copy_file_range.
 *
 * It walks with directory fds (2 per level, entries read with getdents64
 * before descending) and answers AX_COPY_OUT_OF_FDS when a deep tree runs
 * the process out of them; the caller then falls back to cp -a, whose walk
 * keeps a few. Paths longer than PATH_MAX fail, as they do for cp -a.
 */
#include "engine/runtime/layer_copy.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <search.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

/* A file with more than one name: where its first copy went. */
typedef struct linked {
	dev_t dev;
	ino_t ino;
	char *rel;
} linked;

typedef struct copy {
	int dst_root;             /* the destination's top directory */
	int depth;                /* of the directory being copied; 0: the top */
	bool skip_empty_top;      /* see empty_plain_top */
	void *links;              /* tsearch tree of linked */
	char rel[PATH_MAX];       /* the entry being copied, relative to the top */
	long long bytes;          /* the copy's size on disk so far */
	ax_error *err;
} copy;

static int link_cmp(const void *a, const void *b)
{
	const linked *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return 0;
}

static void link_free(void *p)
{
	linked *l = p;

	free(l->rel);
	free(l);
}

static int out_of_fds(int e)
{
	return e == EMFILE || e == ENFILE;
}

/* REL for a message: its last 200 bytes, so the reason always fits. */
static const char *shown(const char *rel)
{
	size_t len = strlen(rel);

	return !len ? "." : len > 200 ? rel + len - 200 : rel;
}

static int fail(copy *c, const char *what, int e)
{
	ax_fail(c->err, AX_CODE_IO, "cannot %s %s%s: %s", what, strlen(c->rel) > 200 ? "..." : "",
		shown(c->rel), strerror(e));
	return out_of_fds(e) ? AX_COPY_OUT_OF_FDS : -1;
}

/* "/proc/self/fd/DIR/NAME": how to reach an entry without following it with
 * the l*xattr calls, which take paths only. */
static void fd_path(char *out, size_t size, int dir, const char *name)
{
	snprintf(out, size, "/proc/self/fd/%d/%s", dir, name);
}

/* Every xattr, as cp -a: failures are ignored (a namespace the destination
 * refuses) except overlay's own, without which the layer would mean
 * something else (an opaque directory would show the lower one's files).
 * SFD/DFD: the entry's fds, or -1 to reach NAME in SDIR/DDIR by path (links
 * and devices cannot be opened). */
static int copy_xattrs(copy *c, int sfd, int sdir, int ddir, const char *name, int dfd)
{
	char spath[PATH_MAX], dpath[PATH_MAX], small[4096], names[1024], *list = names;
	ssize_t n;
	int rc = 0;

	if (sfd < 0) {
		fd_path(spath, sizeof spath, sdir, name);
		fd_path(dpath, sizeof dpath, ddir, name);
	}
	/* Most entries have no or a few short xattrs: one call each with a
	 * buffer that fits, sizing calls only when it does not. */
	n = sfd >= 0 ? flistxattr(sfd, names, sizeof names) : llistxattr(spath, names, sizeof names);
	if (n < 0 && errno == ERANGE) {
		n = sfd >= 0 ? flistxattr(sfd, NULL, 0) : llistxattr(spath, NULL, 0);
		if (n > 0 && !(list = malloc((size_t)n)))
			return ax_fail(c->err, AX_CODE_NOMEM, "out of memory");
		if (n > 0)
			n = sfd >= 0 ? flistxattr(sfd, list, (size_t)n) : llistxattr(spath, list, (size_t)n);
	}
	if (n < 0 && errno != ENOTSUP)
		rc = fail(c, "list the xattrs of", errno);
	for (ssize_t at = 0; rc == 0 && at < n; at += (ssize_t)strlen(list + at) + 1) {
		const char *key = list + at;
		char *value = small;
		ssize_t len = sfd >= 0 ? fgetxattr(sfd, key, small, sizeof small) : lgetxattr(spath, key, small, sizeof small);
		int set = -1;

		if (len < 0 && errno == ERANGE) {
			len = sfd >= 0 ? fgetxattr(sfd, key, NULL, 0) : lgetxattr(spath, key, NULL, 0);
			value = len > 0 ? malloc((size_t)len) : NULL;
			if (value)
				len = sfd >= 0 ? fgetxattr(sfd, key, value, (size_t)len)
					       : lgetxattr(spath, key, value, (size_t)len);
		}
		if (len >= 0 && value)
			set = dfd >= 0 ? fsetxattr(dfd, key, value, (size_t)len, 0)
				       : lsetxattr(dpath, key, value, (size_t)len, 0);
		if (set < 0 && strncmp(key, "trusted.overlay.", 16) == 0)
			rc = fail(c, "copy the overlay xattrs of", value ? errno : ENOMEM);
		if (value != small)
			free(value);
	}
	if (list != names)
		free(list);
	return rc;
}

/* The owner first: chown clears set-id bits and a file's capabilities
 * (security.capability), so it precedes copy_xattrs and copy_mode_times. */
static int copy_owner_fd(copy *c, int dfd, const struct stat *st)
{
	if (fchown(dfd, st->st_uid, st->st_gid) < 0)
		return fail(c, "set the owner of", errno);
	return 0;
}

/* The copy's own size, taken from what was made (a sparse or
 * preallocated source may hold more blocks); a file with more names counts
 * once, as its second names are links. */
static void count_made(copy *c, int dfd)
{
	struct stat st;

	if (fstat(dfd, &st) == 0)
		c->bytes += (long long)st.st_blocks * 512;
}

static int copy_mode_times_fd(copy *c, int dfd, const struct stat *st)
{
	struct timespec times[2] = { st->st_atim, st->st_mtim };

	if (fchmod(dfd, st->st_mode & 07777) < 0 || futimens(dfd, times) < 0)
		return fail(c, "set the mode or times of", errno);
	return 0;
}

/* For file systems without copy_file_range between these two files. */
static int copy_rw(copy *c, int sfd, int dfd, off_t from, off_t to)
{
	char buf[65536];

	while (from < to) {
		size_t want = to - from < (off_t)sizeof buf ? (size_t)(to - from) : sizeof buf;
		ssize_t n = pread(sfd, buf, want, from), w = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail(c, "read", errno);
		if (n == 0)
			break;
		while (w < n) {
			ssize_t m = pwrite(dfd, buf + w, (size_t)(n - w), from + w);

			if (m < 0 && errno == EINTR)
				continue;
			if (m < 0)
				return fail(c, "write", errno);
			w += m;
		}
		from += n;
	}
	return 0;
}

static int copy_data(copy *c, int sfd, int dfd, const struct stat *st)
{
	off_t pos = 0, end = st->st_size;
	bool sparse = (off_t)st->st_blocks * 512 < st->st_size;

	if (end == 0 || ioctl(dfd, FICLONE, sfd) == 0)
		return 0;
	while (pos < end) {
		off_t data = pos, hole = end;

		if (sparse) {
			data = lseek(sfd, pos, SEEK_DATA);
			if (data < 0 && errno == ENXIO)
				break;      /* a hole up to the end */
			hole = data < 0 ? -1 : lseek(sfd, data, SEEK_HOLE);
			if (data < 0 || hole < 0) {
				sparse = false;     /* no SEEK_DATA here: copy it all */
				data = pos;
				hole = end;
			}
		}
		while (data < hole) {
			off_t in = data, out = data;
			ssize_t n = copy_file_range(sfd, &in, dfd, &out, (size_t)(hole - data), 0);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && (errno == EXDEV || errno == EOPNOTSUPP || errno == ENOSYS || errno == EINVAL)) {
				if (copy_rw(c, sfd, dfd, data, hole) < 0)
					return -1;
				break;
			}
			if (n < 0)
				return fail(c, "copy", errno);
			if (n == 0)
				break;      /* the file shrank: it is frozen, so it cannot */
			data += n;
		}
		pos = hole;
	}
	if (ftruncate(dfd, end) < 0)
		return fail(c, "copy", errno);
	return 0;
}

/* The layer is the sandbox's, frozen while it is copied; should anything
 * swap an entry all the same (a sandbox without a freezer cgroup is stopped
 * by signals), the open neither follows a symlink nor waits (a FIFO, a
 * leased file), and what it opened must be the regular file just stat'ed. */
static int copy_regular(copy *c, int sdir, int ddir, const char *name, const struct stat *st)
{
	int sfd = openat(sdir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat opened;
	int dfd, rc;

	if (sfd < 0)
		return fail(c, "open", errno);
	if (fstat(sfd, &opened) < 0)
		rc = fail(c, "stat", errno);
	else if (!S_ISREG(opened.st_mode) || opened.st_ino != st->st_ino || opened.st_dev != st->st_dev)
		rc = fail(c, "open", ESTALE);
	else
		rc = 0;
	if (rc != 0) {
		close(sfd);
		return rc;
	}
	dfd = openat(ddir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (dfd < 0) {
		rc = fail(c, "create", errno);
		close(sfd);
		return rc;
	}
	rc = copy_data(c, sfd, dfd, st);
	if (rc == 0)
		rc = copy_owner_fd(c, dfd, st);
	if (rc == 0)
		rc = copy_xattrs(c, sfd, sdir, ddir, name, dfd);
	if (rc == 0)
		rc = copy_mode_times_fd(c, dfd, st);
	if (rc == 0)
		count_made(c, dfd);
	close(sfd);
	if (close(dfd) < 0 && rc == 0)
		rc = fail(c, "write", errno);
	return rc;
}

/* Symlinks, devices (whiteouts), fifos and sockets: created, then owned and
 * timed through the directory, since they cannot be opened. */
static int copy_special(copy *c, int sdir, int ddir, const char *name, const struct stat *st)
{
	struct timespec times[2] = { st->st_atim, st->st_mtim };
	int rc;

	if (S_ISLNK(st->st_mode)) {
		char target[PATH_MAX + 1];
		ssize_t n = readlinkat(sdir, name, target, sizeof target - 1);

		if (n < 0)
			return fail(c, "read the link", errno);
		target[n] = '\0';
		rc = symlinkat(target, ddir, name);
	} else {
		rc = mknodat(ddir, name, st->st_mode & (S_IFMT | 07777), st->st_rdev);
	}
	if (rc < 0)
		return fail(c, "create", errno);
	if (fchownat(ddir, name, st->st_uid, st->st_gid, AT_SYMLINK_NOFOLLOW) < 0)
		return fail(c, "set the owner of", errno);
	if (copy_xattrs(c, -1, sdir, ddir, name, -1) < 0)
		return -1;
	if ((!S_ISLNK(st->st_mode) && fchmodat(ddir, name, st->st_mode & 07777, 0) < 0) ||
	    utimensat(ddir, name, times, AT_SYMLINK_NOFOLLOW) < 0)
		return fail(c, "set the mode or times of", errno);
	c->bytes += (long long)st->st_blocks * 512;   /* a long symlink's block */
	return 0;
}

/* A second name of a file already copied becomes a link to that copy. */
static int link_or_note(copy *c, int ddir, const char *name, const struct stat *st, bool *done)
{
	linked key = { st->st_dev, st->st_ino, NULL }, *l, **found;

	*done = false;
	if (st->st_nlink < 2 || S_ISDIR(st->st_mode))
		return 0;
	found = tfind(&key, &c->links, link_cmp);
	if (found) {
		*done = true;
		if (linkat(c->dst_root, (*found)->rel, ddir, name, 0) < 0)
			return fail(c, "link", errno);
		return 0;
	}
	l = calloc(1, sizeof *l);
	if (!l || !(l->rel = strdup(c->rel)) || !tsearch(l, &c->links, link_cmp)) {
		if (l)
			free(l->rel);
		free(l);
		return ax_fail(c->err, AX_CODE_NOMEM, "out of memory");
	}
	l->dev = st->st_dev;
	l->ino = st->st_ino;
	return 0;
}

/* The names in directory FD, read before anything is descended into, so
 * each level holds two fds (source, destination) and no directory stream.
 * FD is read from where it is (just opened: the start), with getdents64
 * itself: a DIR stream would cost a dup, a stat and two fcntls per
 * directory. */
static char **read_names(copy *c, int fd, size_t *count, int *rc)
{
	enum { BUF = 32768 };
	char *buf = malloc(BUF), **names = NULL;
	size_t n = 0, cap = 0;
	ssize_t got;

	if (!buf)
		goto nomem;
	while ((got = getdents64(fd, buf, BUF)) > 0) {
		for (ssize_t at = 0; at < got;) {
			const struct dirent64 *ent = (const struct dirent64 *)(buf + at);

			at += ent->d_reclen;
			if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
				continue;
			if (n == cap) {
				char **grown = realloc(names, (cap = cap ? cap * 2 : 16) * sizeof *names);

				if (!grown)
					goto nomem;
				names = grown;
			}
			if (!(names[n] = strdup(ent->d_name)))
				goto nomem;
			n++;
		}
	}
	if (got < 0) {
		*rc = fail(c, "read the directory", errno);
		goto failed;
	}
	free(buf);
	*count = n;
	return names ? names : calloc(1, sizeof *names);
nomem:
	*rc = ax_fail(c->err, AX_CODE_NOMEM, "out of memory");
failed:
	free(buf);
	while (n)
		free(names[--n]);
	free(names);
	return NULL;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

static int copy_entry(copy *c, int sdir, int ddir, const char *name);

/* Copy SFD's entries NAMES into DFD, then DFD's own xattrs and attributes
 * (last, so the times are not changed by the entries and a read-only mode
 * does not stop them). */
static int copy_dir(copy *c, int sfd, int dfd, char **names, size_t n, const struct stat *st)
{
	int rc = copy_owner_fd(c, dfd, st);

	if (rc == 0)
		rc = copy_xattrs(c, sfd, -1, -1, ".", dfd);
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = copy_entry(c, sfd, dfd, names[i]);
	if (rc == 0)
		rc = copy_mode_times_fd(c, dfd, st);
	if (rc == 0)
		count_made(c, dfd);
	return rc;
}

/* Overlayfs (Linux 6.6 and later) stamps each upper directory's root with
 * this when it mounts it; it says nothing about the files, and a layer
 * mounted as a lower one never reads it. */
#define OVERLAY_UUID "trusted.overlay.uuid"

static bool no_xattrs_but_uuid(int fd)
{
	char names[sizeof OVERLAY_UUID + 1];
	ssize_t len = flistxattr(fd, names, sizeof names);

	return len == 0 || (len == (ssize_t)sizeof OVERLAY_UUID && memcmp(names, OVERLAY_UUID, (size_t)len) == 0);
}

/* An empty directory right under the top with no xattr but overlayfs' own
 * stamp: the writable layer of an exposed system directory (/usr, /opt...)
 * the sandbox never wrote to. A restore mounts a fresh one, and a layer
 * without it means the same, so a capture leaves it out. */
static bool empty_plain_top(const copy *c, int fd, size_t n)
{
	return c->skip_empty_top && c->depth == 0 && n == 0 && no_xattrs_but_uuid(fd);
}

static int copy_subdir(copy *c, int sdir, int ddir, const char *name, const struct stat *st)
{
	size_t n = 0;
	char **names;
	int sfd, dfd = -1, rc = 0;

	sfd = openat(sdir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd < 0)
		return fail(c, "open", errno);
	names = read_names(c, sfd, &n, &rc);
	if (rc == 0 && empty_plain_top(c, sfd, n)) {
		/* left out */
	} else if (rc == 0 && mkdirat(ddir, name, 0700) < 0) {
		rc = fail(c, "create", errno);
	} else if (rc == 0 && (dfd = openat(ddir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		rc = fail(c, "open", errno);
	} else if (rc == 0) {
		c->depth++;
		rc = copy_dir(c, sfd, dfd, names, n, st);
		c->depth--;
	}
	free_names(names, n);
	close(sfd);
	if (dfd >= 0)
		close(dfd);
	return rc;
}

static int copy_entry(copy *c, int sdir, int ddir, const char *name)
{
	size_t len = strlen(c->rel), add = strlen(name) + (len ? 1 : 0);
	struct stat st;
	bool linked_done;
	int rc;

	if (len + add >= sizeof c->rel)
		return fail(c, "copy an entry of", ENAMETOOLONG);
	snprintf(c->rel + len, sizeof c->rel - len, "%s%s", len ? "/" : "", name);
	if (fstatat(sdir, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		rc = fail(c, "stat", errno);
	} else if ((rc = link_or_note(c, ddir, name, &st, &linked_done)) < 0 || linked_done) {
		/* linked, or failed */
	} else if (S_ISDIR(st.st_mode)) {
		rc = copy_subdir(c, sdir, ddir, name, &st);
	} else if (S_ISREG(st.st_mode)) {
		rc = copy_regular(c, sdir, ddir, name, &st);
	} else {
		rc = copy_special(c, sdir, ddir, name, &st);
	}
	c->rel[len] = '\0';
	return rc;
}

int ax_layer_copy_tree(const char *src, const char *dst, int flags, long long *bytes, ax_error *err)
{
	copy c = { .dst_root = -1, .err = err, .skip_empty_top = (flags & AX_COPY_SKIP_EMPTY_TOP) != 0 };
	struct stat st;
	int sfd, rc = 0;

	sfd = open(src, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd < 0 || fstat(sfd, &st) < 0)
		rc = fail(&c, "open the layer", errno);
	else if (mkdir(dst, 0700) < 0)
		rc = fail(&c, "create the copy", errno);
	else if ((c.dst_root = open(dst, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		rc = fail(&c, "open the copy", errno);
	else {
		size_t n = 0;
		char **names = read_names(&c, sfd, &n, &rc);

		if (rc == 0)
			rc = copy_dir(&c, sfd, c.dst_root, names, n, &st);
		free_names(names, n);
	}
	if (sfd >= 0)
		close(sfd);
	if (c.dst_root >= 0)
		close(c.dst_root);
	tdestroy(c.links, link_free);
	if (rc == 0 && bytes)
		*bytes = c.bytes;
	return rc;
}
