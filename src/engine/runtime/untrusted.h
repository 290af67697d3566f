/* Reading files a sandbox controls (its writable layer, a checkpoint's
 * layers). The engine runs as host root; a sandbox can put a symlink to any
 * host file, a FIFO, a huge file or a leased file wherever the engine looks,
 * so every such look goes through these: paths resolve below a root the
 * engine owns without following any symlink or leaving its file system,
 * only regular files are read, never blocking, and only up to a size. */
#ifndef ALLOX_ENGINE_UNTRUSTED_H
#define ALLOX_ENGINE_UNTRUSTED_H

#include <stddef.h>
#include <sys/types.h>

#include "lib/ax_error.h"

/* What the engine reads from a sandbox is small (a status file). */
#define AX_UNTRUSTED_MAX (64 * 1024)

/* Open directory PATH, a path of the engine's own state, as the root of
 * the calls below (its last component is not followed either). An fd, or
 * -1 with errno. */
int ax_untrusted_root(const char *path);

/* Read REL (relative, below ROOT) whole into a malloc'd NUL-terminated
 * buffer: 0 with *DATA and *LEN; 1 when REL does not exist; -1 with ERR
 * when it is refused (a symlink on the way, not a regular file, larger
 * than MAX bytes, busy) or cannot be read. */
int ax_untrusted_read(int root, const char *rel, size_t max, char **data, size_t *len, ax_error *err);

/* The file type (S_IFDIR, S_IFREG...) of REL below directory ROOT_PATH,
 * resolved the same way and without opening it: S_IFLNK when REL is a
 * symlink (not followed), 0 when it is missing or refused (a symlink on the
 * way to it). */
mode_t ax_untrusted_type(const char *root_path, const char *rel);

#endif
