/* The sandbox's writable layer on a file system of its own, so that its
 * size has a bound (resourceLimits "ephemeral-storage"): a sparse ext4
 * image in the sandbox's state directory, loop-mounted on
 * <state_dir>/AX_DISK_DIR, which holds the overlays' upper directories
 * (AX_DISK_UPPER) and their work directories (AX_DISK_WORK, which overlay
 * wants on the same mount). Without a bound the same directories are plain
 * ones. The mount is the engine's (the host's mount namespace): it outlives
 * an engine restart like the sandbox does, and the engine reads the layer
 * (checkpoints, the entrypoint's status) where it always did. Each setup
 * process detaches the other sandboxes' disks from its copy of that
 * namespace (ax_disk_detach_others), or a deleted sandbox's disk would stay
 * alive, loop device and all, as long as any sandbox started after it. */
#ifndef ALLOX_ENGINE_DISK_H
#define ALLOX_ENGINE_DISK_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/ax_error.h"

#define AX_DISK_DIR "writable"
#define AX_DISK_UPPER "writable/layer"
#define AX_DISK_WORK "writable/work"
#define AX_DISK_IMAGE "writable.img"

/* Give STATE_DIR its writable layer: with BYTES > 0 an image of that size
 * (copied from a per-size template kept in TEMPLATE_DIR, made with mke2fs
 * the first time) mounted on AX_DISK_DIR; with 0 plain directories. */
int ax_disk_setup(const char *state_dir, const char *template_dir, long long bytes, ax_error *err);

/* Detach STATE_DIR's disk, if it has one mounted (before its removal). */
int ax_disk_release(const char *state_dir, ax_error *err);

/* <STATE_DIR>/AX_DISK_UPPER, or <STATE_DIR>/layer for a sandbox made
 * before the writable layer moved there; malloc'd, NULL without memory. */
char *ax_disk_upper(const char *state_dir);

/* In a setup process, after its mounts: detach every sandbox disk (an ext4
 * on a loop device mounted on a directory named AX_DISK_DIR) from this
 * mount namespace, its own included (its overlays keep that one alive).
 * System calls only (the caller shares a threaded engine's memory); BUF is
 * scratch space for /proc/self/mountinfo. Best effort. */
void ax_disk_detach_others(char *buf, size_t len);

/* Parse one line of mountinfo: true when it is a sandbox disk, with its
 * mount point (unescaped) in MNT. LINE is not changed. */
bool ax_disk_mountinfo_line(const char *line, size_t len, char *mnt, size_t mnt_len);

#endif
