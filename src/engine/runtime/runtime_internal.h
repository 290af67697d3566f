/* Shared between the runtime's source files; not part of the engine's API. */
#ifndef ALLOX_RUNTIME_INTERNAL_H
#define ALLOX_RUNTIME_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine/runtime/runtime.h"

#define AX_RT_BWRAP "/usr/bin/bwrap"
#define AX_RT_WAIT_MS 5000      /* bound for freeze, thaw and kill */
#define AX_RT_START_MS 10000    /* bound for each phase of a start */
#define AX_RT_SHM_SIZE "256m"   /* /dev/shm: Chromium's shared memory lives there */

/* Growable NULL-terminated string vector; allocation failure is sticky in oom
 * so builders can check once at the end. */
typedef struct ax_strv {
	char **v;
	size_t n, cap;
	bool oom;
} ax_strv;

void ax_strv_add(ax_strv *sv, const char *s);
void ax_strv_addf(ax_strv *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ax_strv_free(ax_strv *sv);

char *ax_rt_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ax_rt_note(char *note, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
bool ax_rt_within(const char *dir, const char *path);
void ax_rt_sleep_us(long us);
int ax_rt_write_file(const char *path, const char *s);             /* 0 or an errno */
int ax_rt_read_small(const char *path, char *buf, size_t len);     /* 0 or an errno */

/* /proc/<pid>/stat: state letter and start time; -1 when the pid is gone. */
int ax_rt_proc_stat(pid_t pid, char *state, unsigned long long *start);
/* The process exists, is not a zombie and started at START. */
bool ax_rt_proc_same(pid_t pid, unsigned long long start);

/* FNV-1a over N bytes at P, continuing from H (start from
 * AX_RT_FNV1A_BASIS): names of cached image data after what they hold. */
#define AX_RT_FNV1A_BASIS 0xcbf29ce484222325ULL
uint64_t ax_rt_fnv1a(uint64_t h, const void *p, size_t n);

/* One step the setup child performs before exec'ing bwrap. Everything is
 * computed by the parent, so the child (forked from a possibly threaded
 * engine) only makes system calls. */
typedef enum {
	AX_OP_OVERLAY,      /* mount overlay on dst with options data */
	AX_OP_BIND_RO,      /* bind src (not its submounts) on dst, then read-only */
	AX_OP_TMPFS,        /* tmpfs on dst with options data */
	AX_OP_MKDIR,
	AX_OP_MKFILE,
	AX_OP_REMOUNT_RO,   /* make the tmpfs on dst read-only */
	AX_OP_BIND_DEV,     /* bind the device node src on dst; devices allowed there */
	AX_OP_SYMLINK,      /* symlink dst -> src */
	AX_OP_DEVPTS,       /* a devpts instance on dst with options data */
	AX_OP_IDMAP,        /* bind src (not its submounts) on dst read-only, its owners shifted by
	                     * the idmap whose index is data[0] - '0' (ax_rootfs.idmap_from) */
	AX_OP_VOLUME,       /* bind the directory of fd src (decimal) at dst, a path below the root
	                     * made without following symlinks, through idmap data[0] - '0',
	                     * read-only unless data[1] is 'w' */
} ax_op_kind;

typedef struct ax_op {
	ax_op_kind kind;
	char *src, *dst, *data;
} ax_op;

typedef struct ax_plan {
	ax_op *ops;
	size_t n, cap;
	bool oom;
} ax_plan;

void ax_plan_add(ax_plan *p, ax_op_kind kind, const char *src, const char *dst, const char *data);
void ax_plan_free(ax_plan *p);

/* Top-level host directories a "host" image exposes (when real directories). */
#define AX_EXPOSED_N 11
extern const char *const ax_exposed_dirs[AX_EXPOSED_N];

/* What each exposed name is on this host: 'd' directory, 'l' symlink, '-' neither. */
typedef struct ax_host_layout {
	char kind[AX_EXPOSED_N];
	char target[AX_EXPOSED_N][256];
} ax_host_layout;

void ax_host_layout_read(ax_host_layout *hl);
/* Path of the skeleton for HL under IMAGE_DIR, built on first use. */
int ax_skeleton_get(const char *image_dir, const ax_host_layout *hl, char *out, size_t len, ax_error *err);

/* The sandbox's file system: mounts under merged, and how to exec argv[0]. */
/* At most this many distinct on-disk owner bases below one sandbox. */
#define AX_IDMAPS_MAX 8

typedef struct ax_rootfs {
	ax_plan mounts;
	/* Idmap k shows files whose on-disk owners start at host uid
	 * idmap_from[k] as owned by the sandbox's uids (from uid_base on):
	 * 0 for the image and legacy layers, a capturing sandbox's base for
	 * checkpoint layers. */
	unsigned idmap_from[AX_IDMAPS_MAX];
	unsigned idmap_count[AX_IDMAPS_MAX]; /* uids mapped from there: AX_RT_IDS, or 1 (volumes) */
	size_t n_idmaps;
	unsigned uid_base;
	ax_strv exec;        /* argv prefix inside the sandbox (loader and/or bound binary) */
	char *merged;        /* becomes / of the sandbox */
	char note[256];
} ax_rootfs;

int ax_rootfs_prepare(const ax_rt_spec *spec, ax_rootfs *rf, ax_error *err);
/* Mount a tmpfs on /.allox (left writable: the caller makes it read-only
 * last), bind argv[0] (and for foreign roots the host's loader and
 * libraries) there and set rf->exec to run it. */
int ax_agent_plan(const ax_rt_spec *spec, bool foreign_root, ax_rootfs *rf, ax_error *err);
/* /dev under RF->merged (rootfs_dev.c). */
void ax_dev_plan(ax_rootfs *rf);

/* Make /etc/resolv.conf resolve inside a host sandbox whose state is SD
 * (canonical) when the host's points outside the exposed directories. */
int ax_resolv_plan(const char *sd, const ax_host_layout *hl, unsigned uid_base, ax_rootfs *rf, ax_error *err);
/* The sandbox's /etc/resolv.conf is the host file SRC instead (spec->resolv_conf). */
int ax_resolv_own_plan(const char *sd, const ax_host_layout *hl, unsigned uid_base, const char *src, ax_rootfs *rf,
		       ax_error *err);
void ax_rootfs_free(ax_rootfs *rf);

/* Per-sandbox cgroup directories; "" when that one is not used. */
enum { AX_CG_FREEZER, AX_CG_MEMORY, AX_CG_PIDS, AX_CG_CPU, AX_CG_V2, AX_CG_N };

typedef struct ax_cgroup {
	char dir[AX_CG_N][PATH_MAX];
} ax_cgroup;

/* Create the sandbox's cgroups (owned by root, not writable by others) and
 * write SPEC's limits. Unavailable cgroups are not an error: they are left
 * out and explained in NOTE. */
int ax_cg_create(const ax_rt_spec *spec, ax_cgroup *cg, char *note, size_t notelen, ax_error *err);
/* Find the existing cgroups of sandbox ID. */
void ax_cg_locate(const char *id, ax_cgroup *cg);
bool ax_cg_can_freeze(const ax_cgroup *cg);
int ax_cg_freeze(const ax_cgroup *cg, bool frozen, ax_error *err);
/* Start thawing without waiting (for kill: frozen tasks don't die). */
void ax_cg_thaw_nowait(const ax_cgroup *cg);
/* SIGKILL every member, those of cgroups made below the sandbox's too;
 * returns how many live members were seen. */
int ax_cg_kill_all(const ax_cgroup *cg);
/* rmdir the directories, depth first (cgroups made inside go too); 0, or an
 * errno of the first failure. */
int ax_cg_remove(const ax_cgroup *cg);

#endif
