/* The "host" image's root: a tiny directory tree (mount points, the host's
 * top-level symlinks, empty /home/gem, /tmp, /root...) used as the lower layer
 * of every host sandbox's /. It is built once per host layout: its name
 * carries a hash of that layout, so a changed host gets a new skeleton and
 * running sandboxes keep the one they mounted. */
#include "engine/runtime/runtime_internal.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fs.h"

/* Bump when the skeleton's contents change. */
#define SKELETON_VERSION "1"

const char *const ax_exposed_dirs[AX_EXPOSED_N] = {
	"usr", "etc", "opt", "var", "srv", "bin", "sbin", "lib", "lib32", "lib64", "libx32",
};

static const struct {
	const char *name;
	mode_t mode;
} skel_dirs[] = {
	{ "home", 0755 }, { "home/gem", 0755 }, { "tmp", 01777 }, { "root", 0700 },
	{ "run", 0755 }, { "mnt", 0755 }, { "proc", 0555 }, { "dev", 0755 }, { "sys", 0555 },
	{ ".allox", 0755 },
};

void ax_host_layout_read(ax_host_layout *hl)
{
	memset(hl, 0, sizeof *hl);
	for (int i = 0; i < AX_EXPOSED_N; i++) {
		char path[64];
		struct stat st;

		snprintf(path, sizeof path, "/%s", ax_exposed_dirs[i]);
		hl->kind[i] = '-';
		if (lstat(path, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			hl->kind[i] = 'd';
		} else if (S_ISLNK(st.st_mode)) {
			ssize_t n = readlink(path, hl->target[i], sizeof hl->target[i] - 1);

			if (n > 0 && (size_t)n < sizeof hl->target[i] - 1) {
				hl->target[i][n] = '\0';
				hl->kind[i] = 'l';
			}
		}
	}
}

static uint64_t layout_hash(const ax_host_layout *hl)
{
	uint64_t h = ax_rt_fnv1a(AX_RT_FNV1A_BASIS, SKELETON_VERSION, 1);

	for (int i = 0; i < AX_EXPOSED_N; i++) {
		h = ax_rt_fnv1a(h, &hl->kind[i], 1);
		h = ax_rt_fnv1a(h, hl->target[i], strlen(hl->target[i]) + 1);
	}
	return h;
}

static int mkdir_mode(const char *path, mode_t mode)
{
	/* chmod because umask would strip the sticky and group/other bits. */
	if (mkdir(path, mode) < 0 || chmod(path, mode) < 0)
		return -1;
	return 0;
}

static int build(const char *tmp, const ax_host_layout *hl, ax_error *err)
{
	char path[PATH_MAX * 2];

	if (mkdir_mode(tmp, 0755) < 0)
		return ax_fail(err, AX_CODE_RUNTIME, "cannot create %s: %s", tmp, strerror(errno));
	for (size_t i = 0; i < sizeof skel_dirs / sizeof skel_dirs[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", tmp, skel_dirs[i].name);
		if (mkdir_mode(path, skel_dirs[i].mode) < 0)
			goto fail;
	}
	for (int i = 0; i < AX_EXPOSED_N; i++) {
		snprintf(path, sizeof path, "%s/%s", tmp, ax_exposed_dirs[i]);
		if (hl->kind[i] == 'd' && mkdir_mode(path, 0755) < 0)
			goto fail;
		if (hl->kind[i] == 'l' && symlink(hl->target[i], path) < 0)
			goto fail;
	}
	return 0;
fail:
	return ax_fail(err, AX_CODE_RUNTIME, "cannot create %s: %s", path, strerror(errno));
}

int ax_skeleton_get(const char *image_dir, const ax_host_layout *hl, char *out, size_t len, ax_error *err)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 64];
	struct stat st;

	if (snprintf(dir, sizeof dir, "%s/host", image_dir) >= (int)sizeof dir ||
	    snprintf(out, len, "%s/skeleton-%016llx", dir, (unsigned long long)layout_hash(hl)) >= (int)len)
		return ax_fail(err, AX_CODE_RUNTIME, "path too long: %s", image_dir);
	if (lstat(out, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	if (ax_mkdir_p(dir, 0700, err) < 0)
		return -1;
	/* Build beside it and rename, so a concurrent start never sees half a
	 * skeleton; named per thread, as starts of one engine run side by side. */
	snprintf(tmp, sizeof tmp, "%s.tmp-%d-%d", out, (int)getpid(), (int)gettid());
	ax_rt_remove_state(tmp, NULL);
	if (build(tmp, hl, err) < 0) {
		ax_rt_remove_state(tmp, NULL);
		return -1;
	}
	if (rename(tmp, out) < 0) {
		int e = errno;

		ax_rt_remove_state(tmp, NULL);
		/* Another start won the race: its skeleton is identical. */
		if (e != EEXIST && e != ENOTEMPTY)
			return ax_fail(err, AX_CODE_RUNTIME, "cannot create %s: %s", out, strerror(e));
	}
	return 0;
}
