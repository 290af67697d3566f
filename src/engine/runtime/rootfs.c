/* The sandbox's file system as a list of mounts under <state_dir>/merged,
 * performed later by the setup child in its private mount namespace.
 *
 * host image: / is an overlay of the skeleton (lower) and layer/top (upper);
 * each exposed system directory D gets its own overlay lower=/D upper=layer/D,
 * because one overlay with lowerdir=/ would expose /home, /root, /tmp... and
 * overlapping layers fail with ELOOP.
 * rootfs image: one overlay lower=<rootfs> upper=layer/top.
 * The upper directories (layer/...) and the overlays' work directories live
 * on the sandbox's disk (disk.h), which bounds their size.
 * Checkpoint layers stack above the image in both cases.
 *
 * Every lower is an idmapped bind (AX_OP_IDMAP) staged under
 * <state_dir>/idmap/<n>: the image's root-owned files show as owned by the
 * sandbox's root (host uid_base), so they look root-owned inside while the
 * sandbox's root is an unprivileged host uid; a checkpoint layer captured by
 * a sandbox with another base is shifted to this one's. The upper layer is
 * owned by the sandbox's own range on disk. */
#include "engine/runtime/runtime_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "engine/runtime/disk.h"
#include "lib/fs.h"
#include "engine/runtime/untrusted.h"

/* Overlay options are one page at most. */
#define OVL_OPTS_MAX 4000

typedef struct ctx {
	const ax_rt_spec *spec;
	ax_rootfs *rf;
	char sd[PATH_MAX];          /* canonical state_dir */
	char images[PATH_MAX];      /* canonical image_dir */
	char hide[PATH_MAX];        /* canonical hide_path, "" if none */
	ax_strv layers;             /* canonical layer dirs, topmost first */
	const unsigned *layer_bases;/* their owners' base on disk (spec->layer_bases) */
	unsigned base;              /* spec->uid_base */
	unsigned staged;            /* idmap/<n> directories made so far */
	char empty_file[PATH_MAX + 16]; /* an empty file to bind over masked ones */
	ax_host_layout hl;          /* host image only */
} ctx;

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Overlay option syntax has no escape for ',' in mount data, and ':' separates lowers. */
static int check_opt_path(const char *path, ax_error *err)
{
	if (strpbrk(path, ":,\\\n"))
		return ax_fail(err, AX_CODE_RUNTIME,
			       "path %s contains ':', ',' or '\\', which overlay options cannot carry", path);
	return 0;
}

static int canon(const char *what, const char *path, char *out, ax_error *err)
{
	if (!path || path[0] != '/')
		return ax_fail(err, AX_CODE_RUNTIME, "%s must be an absolute path: %s", what,
			       path ? path : "(null)");
	if (!realpath(path, out))
		return ax_fail(err, AX_CODE_RUNTIME, "%s %s: %s", what, path, strerror(errno));
	return check_opt_path(out, err);
}

/* The host uid of an image file's owner UID as the sandbox sees it. */
static unsigned shifted(const ctx *c, unsigned uid)
{
	return c->base + (uid < AX_RT_IDS ? uid : AX_RT_IDS - 2);
}

/* Index of the idmap of COUNT uids from on-disk base FROM, added when new;
 * -1 when full. */
static int idmap_index(ctx *c, unsigned from, unsigned count)
{
	ax_rootfs *rf = c->rf;

	for (size_t i = 0; i < rf->n_idmaps; i++)
		if (rf->idmap_from[i] == from && rf->idmap_count[i] == count)
			return (int)i;
	if (rf->n_idmaps == AX_IDMAPS_MAX)
		return -1;
	rf->idmap_from[rf->n_idmaps] = from;
	rf->idmap_count[rf->n_idmaps] = count;
	return (int)rf->n_idmaps++;
}

/* Plan an idmapped, read-only bind of SRC (owners from FROM on) at DST. */
static int plan_idmap(ctx *c, const char *src, unsigned from, const char *dst, ax_error *err)
{
	int k = idmap_index(c, from, AX_RT_IDS);
	char data[12];

	if (k < 0)
		return ax_fail(err, AX_CODE_RUNTIME, "layers come from more than %d uid ranges",
			       AX_IDMAPS_MAX);
	snprintf(data, sizeof data, "%d", k);
	ax_plan_add(&c->rf->mounts, AX_OP_IDMAP, src, dst, data);
	return 0;
}

/* SRC as an overlay lower: itself when its owners are already the sandbox's,
 * else an idmapped bind staged at <sd>/idmap/<n> (written to OUT). */
static int lower_path(ctx *c, const char *src, unsigned from, char *out, size_t len, ax_error *err)
{
	if (from == c->base) {
		snprintf(out, len, "%s", src);
		return 0;
	}
	snprintf(out, len, "%s/idmap/%u", c->sd, c->staged++);
	if (mkdir(out, 0700) < 0 && errno != EEXIST)
		return ax_fail(err, AX_CODE_RUNTIME, "cannot create %s: %s", out, strerror(errno));
	return plan_idmap(c, src, from, out, err);
}

/* mkdir PATH (if missing) with the attributes of LIKE, since an overlay shows
 * the upper directory's mode and owner, not the lower's; the owner is
 * shifted into the sandbox's range like the lower's files. PATH is in a
 * sandbox's upper layer: its attributes are set through an fd of the
 * directory just made, never through a path that could be a symlink. */
static int mkdir_like(const ctx *c, const char *path, const char *like, mode_t fallback, ax_error *err)
{
	struct stat st;
	mode_t mode = fallback;
	uid_t uid = 0;
	gid_t gid = 0;
	int fd, rc = 0;

	if (like && lstat(like, &st) == 0 && S_ISDIR(st.st_mode)) {
		mode = st.st_mode & 07777;
		uid = st.st_uid;
		gid = st.st_gid;
	}
	if (mkdir(path, mode) < 0) {
		if (errno == EEXIST && lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return 0;
		return ax_fail(err, AX_CODE_RUNTIME, "cannot create %s: %s", path, strerror(errno));
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fchmod(fd, mode) < 0 || fchown(fd, shifted(c, uid), shifted(c, gid)) < 0)
		rc = ax_fail(err, AX_CODE_RUNTIME, "cannot set up %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return rc;
}

/* Overlay for mount point NAME ("top" or an exposed dir): lowers are each
 * layer's NAME (when present) above IMAGE_LOWER. */
static int add_overlay(ctx *c, const char *name, const char *image_lower, const char *like, const char *dst,
		       ax_error *err)
{
	char mask[PATH_MAX + 64];
	char upper[PATH_MAX + 64], work[PATH_MAX + 64], opts[OVL_OPTS_MAX + 1];
	size_t used;
	int n;

	char lower[PATH_MAX + 64];

	snprintf(upper, sizeof upper, "%s/" AX_DISK_UPPER "/%s", c->sd, name);
	snprintf(work, sizeof work, "%s/" AX_DISK_WORK "/%s", c->sd, name);
	if (mkdir_like(c, upper, like, 0755, err) < 0)
		return -1;
	/* The work directory stays root's: only the overlay (mounted by host root) uses it. */
	if (mkdir(work, 0700) < 0 && errno != EEXIST)
		return ax_fail(err, AX_CODE_RUNTIME, "cannot create %s: %s", work, strerror(errno));
	used = (size_t)snprintf(opts, sizeof opts, "lowerdir=");
	for (size_t i = 0; i < c->layers.n && used < sizeof opts; i++) {
		char dir[PATH_MAX + 64];

		/* A symlink here would make a host directory a lower layer. */
		snprintf(dir, sizeof dir, "%s/%s", c->layers.v[i], name);
		if (ax_untrusted_type(c->layers.v[i], name) != S_IFDIR)
			continue;
		if (lower_path(c, dir, c->layer_bases ? c->layer_bases[i] : 0, lower, sizeof lower, err) < 0)
			return -1;
		used += (size_t)snprintf(opts + used, sizeof opts - used, "%s:", lower);
	}
	/* The host's own secrets stay hidden below the sandbox's layers (host_mask.c). */
	if (c->spec->host_mask && strcmp(name, "top") != 0 && used < sizeof opts) {
		snprintf(mask, sizeof mask, "%s/%s", c->spec->host_mask, name);
		if (is_dir(mask)) {
			if (check_opt_path(mask, err) < 0 || lower_path(c, mask, 0, lower, sizeof lower, err) < 0)
				return -1;
			used += (size_t)snprintf(opts + used, sizeof opts - used, "%s:", lower);
		}
	}
	if (used >= sizeof opts)
		goto too_long;
	if (lower_path(c, image_lower, 0, lower, sizeof lower, err) < 0)
		return -1;
	n = snprintf(opts + used, sizeof opts - used, "%s,upperdir=%s,workdir=%s", lower, upper, work);
	if (n < 0 || (size_t)n >= sizeof opts - used)
		goto too_long;
	ax_plan_add(&c->rf->mounts, AX_OP_OVERLAY, NULL, dst, opts);
	return 0;
too_long:
	return ax_fail(err, AX_CODE_RUNTIME, "too many layers for %s: overlay options exceed %d bytes",
		       dst, OVL_OPTS_MAX);
}

/* A bind can't carry the host mask's whiteouts: cover each masked path
 * under HOSTDIR itself, a file with an empty read-only file (the /.allox
 * tmpfs's), a directory with an empty read-only tmpfs. */
static int cover_masked(ctx *c, const char *hostdir, ax_error *err)
{
	char mask[PATH_MAX + 64], dst[PATH_MAX * 2];
	char *roots[] = { mask, NULL };
	FTS *fts;
	FTSENT *f;

	if (!c->spec->host_mask)
		return 0;
	snprintf(mask, sizeof mask, "%s%s", c->spec->host_mask, hostdir);
	if (!is_dir(mask))
		return 0;
	fts = fts_open(roots, FTS_PHYSICAL | FTS_NOCHDIR, NULL);
	if (!fts)
		return ax_fail(err, AX_CODE_RUNTIME, "cannot read %s: %s", mask, strerror(errno));
	while ((f = fts_read(fts))) {
		bool opaque = f->fts_info == FTS_D && f->fts_level > 0 &&
			      getxattr(f->fts_path, "trusted.overlay.opaque", NULL, 0) > 0;
		bool whiteout = f->fts_info == FTS_DEFAULT && S_ISCHR(f->fts_statp->st_mode);

		if (!opaque && !whiteout)
			continue;
		snprintf(dst, sizeof dst, "%s%s%s", c->rf->merged, hostdir, f->fts_path + strlen(mask));
		if (opaque) {
			ax_plan_add(&c->rf->mounts, AX_OP_TMPFS, NULL, dst, "mode=0700,size=4k,nr_inodes=4");
			ax_plan_add(&c->rf->mounts, AX_OP_REMOUNT_RO, NULL, dst, NULL);
			fts_set(fts, f, FTS_SKIP);
		} else {
			ax_plan_add(&c->rf->mounts, AX_OP_BIND_RO, c->empty_file, dst, NULL);
		}
	}
	fts_close(fts);
	return 0;
}

/* An exposed dir that holds engine state can't be an overlay lower (the
 * layers would overlap): bind it read-only and cover the state with tmpfs. */
static int add_covered_bind(ctx *c, const char *hostdir, ax_error *err)
{
	char sandboxes[PATH_MAX], dst[PATH_MAX * 2], *slash;
	const char *covers[3], *done[3];
	size_t ndone = 0;

	/* The sandboxes directory holds other sandboxes' state, not only this one's. */
	snprintf(sandboxes, sizeof sandboxes, "%s", c->sd);
	slash = strrchr(sandboxes, '/');
	if (slash && slash != sandboxes)
		*slash = '\0';
	covers[0] = c->hide[0] ? c->hide : NULL;
	covers[1] = sandboxes;
	covers[2] = c->images;
	snprintf(dst, sizeof dst, "%s%s", c->rf->merged, hostdir);
	if (plan_idmap(c, hostdir, 0, dst, err) < 0)
		return -1;
	for (size_t i = 0; i < 3; i++) {
		bool covered = false;

		if (!covers[i] || !ax_rt_within(hostdir, covers[i]))
			continue;
		for (size_t j = 0; j < ndone; j++)
			covered = covered || ax_rt_within(done[j], covers[i]);
		if (covered)
			continue;
		done[ndone++] = covers[i];
		snprintf(dst, sizeof dst, "%s%s", c->rf->merged, covers[i]);
		ax_plan_add(&c->rf->mounts, AX_OP_TMPFS, NULL, dst, "mode=0755,size=4k,nr_inodes=16");
		ax_plan_add(&c->rf->mounts, AX_OP_REMOUNT_RO, NULL, dst, NULL);
	}
	ax_rt_note(c->rf->note, sizeof c->rf->note, "%s is read-only (it holds engine state)", hostdir);
	return cover_masked(c, hostdir, err);
}

static bool holds_state(const ctx *c, const char *hostdir)
{
	if ((c->hide[0] && ax_rt_within(hostdir, c->hide)) || ax_rt_within(hostdir, c->sd) ||
	    ax_rt_within(hostdir, c->images))
		return true;
	for (size_t i = 0; i < c->layers.n; i++)
		if (ax_rt_within(hostdir, c->layers.v[i]))
			return true;
	return false;
}

/* Host temp files in /var/tmp are as private as /tmp: an opaque empty
 * directory in the upper layer hides them (unless a checkpoint has its own).
 * The checkpoints' layers hold what sandboxes wrote, so they are looked at
 * without following symlinks (untrusted.h); the upper is this start's own,
 * but it too is changed through fds only: the engine is host root, and a
 * path a sandbox could ever have shaped must not lead it elsewhere. */
static void hide_var_tmp(ctx *c)
{
	char path[PATH_MAX + 64];
	int var, tmp;

	for (size_t i = 0; i < c->layers.n; i++)
		if (ax_untrusted_type(c->layers.v[i], "var/tmp") == S_IFDIR)
			return;
	snprintf(path, sizeof path, "%s/" AX_DISK_UPPER "/var", c->sd);
	var = ax_untrusted_root(path);
	if (var < 0 || mkdirat(var, "tmp", 01777) < 0) {
		if (var >= 0)
			close(var);
		return;
	}
	tmp = openat(var, "tmp", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (tmp < 0 || fchmod(tmp, 01777) < 0 || fchown(tmp, c->base, c->base) < 0 ||
	    fsetxattr(tmp, "trusted.overlay.opaque", "y", 1, 0) < 0)
		ax_rt_note(c->rf->note, sizeof c->rf->note, "host /var/tmp visible: %s", strerror(errno));
	if (tmp >= 0)
		close(tmp);
	close(var);
}

static int plan_host(ctx *c, ax_error *err)
{
	ax_host_layout *hl = &c->hl;
	char skel[PATH_MAX];

	ax_host_layout_read(hl);
	if (ax_skeleton_get(c->images, hl, skel, sizeof skel, err) < 0 ||
	    add_overlay(c, "top", skel, skel, c->rf->merged, err) < 0)
		return -1;
	for (int i = 0; i < AX_EXPOSED_N; i++) {
		char hostdir[64], dst[PATH_MAX + 64];

		if (hl->kind[i] != 'd')
			continue;
		snprintf(hostdir, sizeof hostdir, "/%s", ax_exposed_dirs[i]);
		if (holds_state(c, hostdir)) {
			if (add_covered_bind(c, hostdir, err) < 0)
				return -1;
			continue;
		}
		snprintf(dst, sizeof dst, "%s%s", c->rf->merged, hostdir);
		if (add_overlay(c, ax_exposed_dirs[i], hostdir, hostdir, dst, err) < 0)
			return -1;
		if (strcmp(ax_exposed_dirs[i], "var") == 0)
			hide_var_tmp(c);
	}
	return 0;
}

static int plan_rootfs(ctx *c, const char *path, ax_error *err)
{
	static const struct {
		const char *name;
		mode_t mode;
	} needed[] = {
		{ "home", 0755 }, { "home/gem", 0755 }, { "tmp", 01777 }, { "proc", 0555 },
		{ "dev", 0755 }, { ".allox", 0755 },
	};
	char root[PATH_MAX];

	if (canon("rootfs image", path, root, err) < 0)
		return -1;
	if (!is_dir(root))
		return ax_fail(err, AX_CODE_RUNTIME, "rootfs image %s is not a directory", root);
	if (ax_rt_within(root, c->sd) || ax_rt_within(c->sd, root) || (c->hide[0] && ax_rt_within(root, c->hide)))
		return ax_fail(err, AX_CODE_RUNTIME,
			       "rootfs image %s overlaps the engine's state (%s)", root, c->sd);
	if (add_overlay(c, "top", root, root, c->rf->merged, err) < 0)
		return -1;
	/* Mount points and the workspace, when the image lacks them, live in the upper layer. */
	for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++) {
		char lower[PATH_MAX * 2], upper[PATH_MAX + 64];
		struct stat st;

		snprintf(lower, sizeof lower, "%s/%s", root, needed[i].name);
		snprintf(upper, sizeof upper, "%s/" AX_DISK_UPPER "/top/%s", c->sd, needed[i].name);
		if (lstat(lower, &st) == 0 && !S_ISDIR(st.st_mode))
			continue;
		if (lstat(upper, &st) < 0 && mkdir_like(c, upper, lower, needed[i].mode, err) < 0)
			return -1;
	}
	return 0;
}

static int setup_dirs(ctx *c, ax_error *err)
{
	static const char *const sub[] = { "merged", "idmap" };
	char templates[PATH_MAX + 16];

	for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++) {
		char path[PATH_MAX + 16];

		snprintf(path, sizeof path, "%s/%s", c->sd, sub[i]);
		if (mkdir(path, 0700) < 0 && errno != EEXIST)
			return ax_fail(err, AX_CODE_RUNTIME, "cannot create %s: %s", path, strerror(errno));
	}
	snprintf(templates, sizeof templates, "%s/disks", c->images);
	if (ax_disk_setup(c->sd, templates, c->spec->disk_bytes, err) < 0)
		return -1;
	/* Bound over host files the sandbox may not read (cover_masked): empty,
	 * and host root's, so unreadable inside as well. */
	snprintf(c->empty_file, sizeof c->empty_file, "%s/idmap/empty", c->sd);
	{
		int fd = open(c->empty_file, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0);

		if (fd < 0)
			return ax_fail(err, AX_CODE_RUNTIME, "cannot create %s: %s", c->empty_file,
				       strerror(errno));
		close(fd);
	}
	c->rf->merged = ax_rt_fmt("%s/merged", c->sd);
	return c->rf->merged ? 0 : ax_fail(err, AX_CODE_RUNTIME, "out of memory");
}

static int resolve(ctx *c, ax_error *err)
{
	const ax_rt_spec *s = c->spec;

	if (canon("state_dir", s->state_dir, c->sd, err) < 0)
		return -1;
	{
		char guess[PATH_MAX + 16];
		const char *images = s->image_dir;

		if (!images) {
			snprintf(guess, sizeof guess, "%s/../../images", c->sd);
			images = guess;
		}
		if ((!is_dir(images) && ax_mkdir_p(images, 0700, err) < 0) || canon("image_dir", images, c->images, err) < 0)
			return -1;
	}
	if (s->hide_path && !realpath(s->hide_path, c->hide)) {
		if (s->hide_path[0] != '/' || strlen(s->hide_path) >= sizeof c->hide)
			return ax_fail(err, AX_CODE_RUNTIME, "hide_path must be absolute: %s", s->hide_path);
		snprintf(c->hide, sizeof c->hide, "%s", s->hide_path);
	}
	if (c->hide[0] && strcmp(c->hide, "/") == 0)
		return ax_fail(err, AX_CODE_RUNTIME, "hide_path cannot be /");
	for (size_t i = 0; s->layers && s->layers[i]; i++) {
		char layer[PATH_MAX];

		if (canon("layer", s->layers[i], layer, err) < 0)
			return -1;
		ax_strv_add(&c->layers, layer);
	}
	return 0;
}

/* The volumes, mounted over everything else planned. */
static int plan_volumes(ctx *c, ax_error *err)
{
	if (c->spec->n_volumes > AX_VOLUMES_MAX)
		return ax_fail(err, AX_CODE_RUNTIME, "more than %d volumes", AX_VOLUMES_MAX);
	for (size_t i = 0; i < c->spec->n_volumes; i++) {
		const ax_rt_volume *v = &c->spec->volumes[i];
		int k = idmap_index(c, v->owner_from, v->count);
		char fd[16], data[4];

		if (k < 0)
			return ax_fail(err, AX_CODE_RUNTIME, "layers and volumes come from more than %d uid ranges",
				       AX_IDMAPS_MAX);
		if (!v->path || v->path[0] != '/' || !v->path[1])
			return ax_fail(err, AX_CODE_RUNTIME, "a volume's mount point must be below /");
		snprintf(fd, sizeof fd, "%d", v->fd);
		data[0] = (char)('0' + k);
		data[1] = v->read_only ? 'r' : 'w';
		data[2] = '\0';
		ax_plan_add(&c->rf->mounts, AX_OP_VOLUME, fd, v->path + 1, data);
	}
	return 0;
}

int ax_rootfs_prepare(const ax_rt_spec *spec, ax_rootfs *rf, ax_error *err)
{
	ctx c;
	int rc;

	memset(rf, 0, sizeof *rf);
	memset(&c, 0, sizeof c);
	c.spec = spec;
	c.rf = rf;
	c.base = spec->uid_base;
	c.layer_bases = spec->layer_bases;
	rf->uid_base = spec->uid_base;
	if (resolve(&c, err) < 0 || setup_dirs(&c, err) < 0) {
		rc = -1;
	} else if (strcmp(spec->image, "host") == 0) {
		rc = plan_host(&c, err);
	} else if (strncmp(spec->image, "rootfs:", 7) == 0) {
		rc = plan_rootfs(&c, spec->image + 7, err);
	} else {
		rc = ax_fail(err, AX_CODE_USAGE, "unknown image \"%s\" (expected host or rootfs:/abs/path)",
			     spec->image);
	}
	if (rc == 0)
		rc = ax_agent_plan(spec, strcmp(spec->image, "host") != 0, rf, err);
	if (rc == 0 && spec->resolv_conf)
		rc = ax_resolv_own_plan(c.sd, strcmp(spec->image, "host") == 0 ? &c.hl : NULL, spec->uid_base,
					spec->resolv_conf, rf, err);
	else if (rc == 0 && strcmp(spec->image, "host") == 0)
		rc = ax_resolv_plan(c.sd, &c.hl, spec->uid_base, rf, err);
	if (rc == 0)
		ax_dev_plan(rf);
	if (rc == 0)
		rc = plan_volumes(&c, err);
	if (rc == 0) {
		char *allox = ax_rt_fmt("%s/.allox", rf->merged);

		if (allox)
			ax_plan_add(&rf->mounts, AX_OP_REMOUNT_RO, NULL, allox, NULL);
		else
			rf->mounts.oom = true;
		free(allox);
	}
	if (rc == 0 && (rf->mounts.oom || rf->exec.oom || c.layers.oom))
		rc = ax_fail(err, AX_CODE_RUNTIME, "out of memory");
	ax_strv_free(&c.layers);
	if (rc < 0)
		ax_rootfs_free(rf);
	return rc;
}

void ax_rootfs_free(ax_rootfs *rf)
{
	ax_plan_free(&rf->mounts);
	ax_strv_free(&rf->exec);
	free(rf->merged);
	rf->merged = NULL;
}
