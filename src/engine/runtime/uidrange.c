/* Host uid ranges for sandboxes, claimed host-wide.
 *
 * Several engines (one per ALLOX_HOME) may run on one host, so a range is
 * claimed in a directory they share, as systemd-nspawn's
 * --private-users=pick does in /run/systemd/nspawn-locks: one file per
 * range, named by its base, holding the claimant's state directory. A claim
 * whose state directory is gone (its sandbox was deleted, its ALLOX_HOME
 * removed) is stale and may be taken over. All of it under an flock on the
 * directory's lock file, so two engines never pick the same range. /run is a
 * tmpfs: claims vanish at reboot, with the sandboxes that held them. */
#include "engine/runtime/uidrange.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fs.h"

#define CLAIM_MAX 4096

static int lock_dir(const char *dir, ax_error *err)
{
	char path[PATH_MAX];
	int fd;

	if (ax_mkdir_p(dir, 0700, err) < 0)
		return -1;
	snprintf(path, sizeof path, "%s/.lock", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		ax_fail(err, AX_CODE_RUNTIME, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			ax_fail(err, AX_CODE_RUNTIME, "cannot lock %s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
	}
	return fd;
}

/* The claimant recorded in the claim file FD ("" when unreadable). */
static void read_claim(int fd, char *out, size_t len)
{
	ssize_t n = pread(fd, out, len - 1, 0);

	out[n > 0 ? n : 0] = '\0';
}

static int write_claim(int fd, const char *owner)
{
	size_t len = strlen(owner);

	return ftruncate(fd, 0) == 0 && pwrite(fd, owner, len, 0) == (ssize_t)len ? 0 : -1;
}

/* A claim is stale when what it names is no longer a directory. */
static bool stale(const char *claimant)
{
	struct stat st;

	return claimant[0] != '/' || stat(claimant, &st) < 0 || !S_ISDIR(st.st_mode);
}

int ax_uidrange_claim(const ax_uidrange *r, const char *owner, unsigned *base, ax_error *err)
{
	int lock = lock_dir(r->dir, err), rc = -1;
	bool failed = false;

	if (lock < 0)
		return -1;
	for (unsigned i = 0; i < r->count && rc < 0; i++) {
		unsigned b = r->first + i * AX_UIDRANGE_SIZE;
		char path[PATH_MAX], claimant[CLAIM_MAX];
		int fd;

		snprintf(path, sizeof path, "%s/%u", r->dir, b);
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0 && errno == EEXIST) {
			fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
			if (fd < 0)
				continue;
			read_claim(fd, claimant, sizeof claimant);
			if (strcmp(claimant, owner) == 0) {
				/* Ours already: the same state directory started again. */
				close(fd);
				*base = b;
				rc = 0;
				break;
			}
			if (!stale(claimant)) {
				close(fd);
				continue;
			}
		}
		if (fd < 0) {
			ax_fail(err, AX_CODE_RUNTIME, "cannot create %s: %s", path, strerror(errno));
			failed = true;
			break;
		}
		if (write_claim(fd, owner) == 0) {
			*base = b;
			rc = 0;
		} else {
			ax_fail(err, AX_CODE_RUNTIME, "cannot write %s: %s", path, strerror(errno));
			unlink(path);
			failed = true;
		}
		close(fd);
		if (failed)
			break;
	}
	if (rc < 0 && !failed)
		ax_fail(err, AX_CODE_RUNTIME, "all %u uid ranges from %u are in use", r->count, r->first);
	close(lock);
	return rc;
}

void ax_uidrange_release(const ax_uidrange *r, const char *owner, unsigned base)
{
	char path[PATH_MAX], claimant[CLAIM_MAX];
	ax_error err;
	int lock = lock_dir(r->dir, &err), fd;

	if (lock < 0)
		return;
	snprintf(path, sizeof path, "%s/%u", r->dir, base);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0) {
		read_claim(fd, claimant, sizeof claimant);
		/* Someone else's by now (ours went stale and was taken): keep it. */
		if (strcmp(claimant, owner) == 0)
			unlink(path);
		close(fd);
	}
	close(lock);
}
