/* Host directories a sandbox may mount: only below prefixes the operator
 * allowed (allox-engine --allow-host-volumes), resolved so that neither
 * ".." nor a symlink (one a sandbox planted through another volume, say)
 * leads out of the prefix. */
#ifndef ALLOX_ENGINE_HOST_PATH_H
#define ALLOX_ENGINE_HOST_PATH_H

#include <stddef.h>

#include "lib/ax_error.h"

/* An O_PATH fd (CLOEXEC) of directory PATH/SUB (SUB may be NULL or ""), or
 * -1 with SANDBOX::INVALID_PARAMETER in ERR. PATH must be absolute, without
 * "." or ".." components, and at or below one of PREFIXES (NULL-terminated,
 * each canonical, as realpath gives); SUB must be relative, without "."
 * or "..". The open is done below the prefix with RESOLVE_BENEATH: a
 * symlink may point within the prefix, never out of it. */
int ax_host_path_open(const char *const *prefixes, const char *path, const char *sub, ax_error *err);

/* Whether P is a clean path: no empty, "." or ".." component (ABSOLUTE:
 * starts with '/', else must not). "/" alone is clean when ABSOLUTE. */
int ax_path_clean(const char *p, int absolute);

#endif
