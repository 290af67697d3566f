/* File-system helpers: whole-file reads, atomic replacement, directory creation. */
#ifndef ALLOX_FS_H
#define ALLOX_FS_H

#include <stddef.h>
#include <sys/types.h>

#include "lib/ax_error.h"

/* Read PATH whole into a NUL-terminated malloc'd buffer.
 * Returns 0 on success, 1 if PATH does not exist, -1 with ERR otherwise. */
int ax_read_file(const char *path, char **data, size_t *len, ax_error *err);

/* Replace PATH with DATA atomically: write a temporary file beside it, fsync,
 * rename over PATH. Readers see the old or the new file, never a mix; on any
 * failure PATH is untouched and the temporary file is removed. */
int ax_write_file_atomic(const char *path, const void *data, size_t len, mode_t mode, ax_error *err);

/* The same replacement without fsync: readers still never see a torn file,
 * but a power cut may lose the update. For state that is rebuilt or merely
 * informational (status files), where a fsync would slow every start. */
int ax_write_file_replace(const char *path, const void *data, size_t len, mode_t mode, ax_error *err);

/* Write all LEN bytes of BUF to FD, retrying short writes and EINTR.
 * 0, or -1 with errno set. */
int ax_write_all(int fd, const void *buf, size_t len);

/* mkdir -p with MODE for each created component. */
int ax_mkdir_p(const char *path, mode_t mode, ax_error *err);

/* Create PATH's parent directories (mkdir -p of dirname). */
int ax_mkdir_parent(const char *path, mode_t mode, ax_error *err);

/* Return a malloc'd "DIR/NAME". */
char *ax_path_join(const char *dir, const char *name);

#endif
