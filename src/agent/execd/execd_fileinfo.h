/* FileInfo objects (execd-api.yaml) and the directory walk behind
 * /files/search and /directories/list. Symbolic links are reported as
 * such and never followed. */
#ifndef ALLOX_AGENT_EXECD_FILEINFO_H
#define ALLOX_AGENT_EXECD_FILEINFO_H

#include <jansson.h>
#include <sys/stat.h>

/* {path, type (file|directory|symlink|other), size, modified_at, created_at,
 * owner, group, mode}: mode is an integer whose decimal digits are the
 * octal permission bits (0644 -> 644); owner and group are names when the
 * system knows them, else the numeric ids. */
json_t *ag_fileinfo(const char *path, const struct stat *st);

/* The permission bits written the execd way (644) back as a mode (0644).
 * -1 when MODE is not such a number. */
int ag_mode_from_digits(long long mode);

/* Called for each entry under the walked directory, with its full path and
 * lstat data and its depth (1 for direct children). Return 0 to go on,
 * -1 to stop the walk. */
typedef int (*ag_walk_fn)(void *cls, const char *path, const struct stat *st, int depth);

/* Walk ROOT (a directory) down to MAX_DEPTH levels, entries sorted by name
 * within each directory, each directory's descendants right after it.
 * Entries that vanish meanwhile are skipped. 0, or -1 with errno (and the
 * failing path in *WHERE if WHERE is given, malloc'd). */
int ag_walk(const char *root, int max_depth, ag_walk_fn fn, void *cls, char **where);

#endif
