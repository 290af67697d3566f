/* The "host" image shows the host's system directories, and inside, their
 * root-owned files are the sandbox root's. That would hand it /etc/shadow,
 * private keys, other services' data: whatever the host keeps from its
 * unprivileged users. The mask is a read-only layer laid over the host
 * directories that hides exactly that: every file an unprivileged host user
 * cannot read is whited out, every directory one cannot search shows empty.
 * So a sandbox sees of the host what a host user without privileges sees.
 *
 * The scan covers etc, var, opt and srv (about 9,000 entries here, 60-80 ms);
 * /usr (200,000 entries, 4 s cold) holds no such secrets on a Debian system
 * and is left out. A layer is built once per distinct list of masked paths
 * (its name carries a hash of the list) and kept; engines rescan now and then
 * (see sandboxes.c) so secrets made later are masked for later sandboxes. */
#include "engine/runtime/host_mask.h"

#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "engine/runtime/runtime_internal.h"

#define MASK_VERSION "1"
#define MASK_MAX 4096   /* more secrets than this: the rest stay (noted) */

typedef struct masked {
	char *path;     /* absolute host path */
	struct stat st;
} masked;

typedef struct scan {
	masked *v;
	size_t n, cap;
	bool oom, full;
} scan;

static const char *const scanned[] = { "/etc", "/var", "/opt", "/srv" };

static bool hidden_from_users(const struct stat *st)
{
	if (S_ISDIR(st->st_mode))
		return !(st->st_mode & S_IXOTH);
	if (S_ISREG(st->st_mode))
		return !(st->st_mode & S_IROTH);
	return false;   /* links, sockets, fifos, devices: nothing to read */
}

static void add(scan *s, const char *path, const struct stat *st)
{
	if (s->n == MASK_MAX) {
		s->full = true;
		return;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		masked *v = realloc(s->v, cap * sizeof *v);

		if (!v) {
			s->oom = true;
			return;
		}
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n].path = strdup(path);
	s->v[s->n].st = *st;
	if (!s->v[s->n].path)
		s->oom = true;
	else
		s->n++;
}

static void scan_free(scan *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].path);
	free(s->v);
	memset(s, 0, sizeof *s);
}

/* Not into other file systems: the overlays don't show host submounts. */
static void walk(scan *s)
{
	for (size_t i = 0; i < sizeof scanned / sizeof scanned[0]; i++) {
		char *roots[] = { (char *)scanned[i], NULL };
		struct stat st;
		FTS *fts;
		FTSENT *f;

		if (lstat(scanned[i], &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		fts = fts_open(roots, FTS_PHYSICAL | FTS_XDEV | FTS_NOCHDIR, NULL);
		while (fts && (f = fts_read(fts))) {
			if ((f->fts_info != FTS_D && f->fts_info != FTS_F) || !hidden_from_users(f->fts_statp))
				continue;
			add(s, f->fts_path, f->fts_statp);
			if (f->fts_info == FTS_D)
				fts_set(fts, f, FTS_SKIP);
		}
		if (fts)
			fts_close(fts);
	}
}

static uint64_t hash(const scan *s)
{
	uint64_t h = ax_rt_fnv1a(AX_RT_FNV1A_BASIS, MASK_VERSION, strlen(MASK_VERSION));

	for (size_t i = 0; i < s->n; i++) {
		h = ax_rt_fnv1a(h, s->v[i].path, strlen(s->v[i].path) + 1);
		h = ax_rt_fnv1a(h, &s->v[i].st.st_mode, sizeof s->v[i].st.st_mode);
	}
	return h;
}

/* mkdir DIR/REL's parents as the host's (mode and owner: the overlay shows
 * a merged directory's attributes from the topmost layer that has it). */
static int make_parents(const char *dir, const char *rel, ax_error *err)
{
	char host[PATH_MAX], path[PATH_MAX * 2];

	for (const char *slash = strchr(rel + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		struct stat st;

		snprintf(host, sizeof host, "%.*s", (int)(slash - rel), rel);
		snprintf(path, sizeof path, "%s%s", dir, host);
		if (lstat(path, &st) == 0)
			continue;
		if (lstat(host, &st) < 0 || !S_ISDIR(st.st_mode))
			st.st_mode = 0755, st.st_uid = 0, st.st_gid = 0;
		if (mkdir(path, st.st_mode & 07777) < 0 || chmod(path, st.st_mode & 07777) < 0 ||
		    lchown(path, st.st_uid, st.st_gid) < 0)
			return ax_fail(err, AX_CODE_RUNTIME, "cannot create %s: %s", path, strerror(errno));
	}
	return 0;
}

static int build(const scan *s, const char *dir, ax_error *err)
{
	if (mkdir(dir, 0755) < 0)
		return ax_fail(err, AX_CODE_RUNTIME, "cannot create %s: %s", dir, strerror(errno));
	for (size_t i = 0; i < s->n; i++) {
		const masked *m = &s->v[i];
		char path[PATH_MAX * 2];
		int rc;

		if (make_parents(dir, m->path, err) < 0)
			return -1;
		snprintf(path, sizeof path, "%s%s", dir, m->path);
		if (S_ISDIR(m->st.st_mode)) {
			/* Empty but there, as to a host user who may not look in. */
			rc = mkdir(path, m->st.st_mode & 07777) == 0 && chmod(path, m->st.st_mode & 07777) == 0 &&
			     lchown(path, m->st.st_uid, m->st.st_gid) == 0 &&
			     setxattr(path, "trusted.overlay.opaque", "y", 1, 0) == 0 ? 0 : -1;
		} else {
			rc = mknod(path, S_IFCHR | 0000, makedev(0, 0));   /* an overlay whiteout */
		}
		if (rc < 0)
			return ax_fail(err, AX_CODE_RUNTIME, "cannot create %s: %s", path, strerror(errno));
	}
	return 0;
}

int ax_host_mask_get(const char *image_dir, char *out, size_t len, char *note, size_t notelen, ax_error *err)
{
	char tmp[PATH_MAX];
	scan s = { 0 };
	struct stat st;
	int rc = 0;

	walk(&s);
	if (s.oom) {
		scan_free(&s);
		return ax_fail(err, AX_CODE_RUNTIME, "out of memory");
	}
	if (s.full)
		snprintf(note, notelen, "more than %d host files are hidden from users: only the first are masked",
			 MASK_MAX);
	snprintf(out, len, "%s/mask-%016llx", image_dir, (unsigned long long)hash(&s));
	if (lstat(out, &st) == 0 && S_ISDIR(st.st_mode)) {
		scan_free(&s);
		return 0;
	}
	/* Built aside and renamed into place: a crash leaves no half mask. */
	snprintf(tmp, sizeof tmp, "%s.%d.tmp", out, (int)getpid());
	ax_rt_remove_state(tmp, NULL);
	if (build(&s, tmp, err) < 0)
		rc = -1;
	else if (rename(tmp, out) < 0)
		rc = ax_fail(err, AX_CODE_RUNTIME, "cannot create %s: %s", out, strerror(errno));
	if (rc < 0) {
		ax_rt_remove_state(tmp, NULL);
		if (lstat(out, &st) == 0 && S_ISDIR(st.st_mode))
			rc = 0;   /* another engine built the same mask meanwhile */
	}
	scan_free(&s);
	return rc;
}
