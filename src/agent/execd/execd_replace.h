/* Replacing text in files (POST /files/replace): every occurrence of a
 * non-empty string, streamed through a temporary file beside the original
 * that then takes its place, so memory stays bounded whatever the file's
 * size and a reader never sees a half-written file. */
#ifndef ALLOX_AGENT_EXECD_REPLACE_H
#define ALLOX_AGENT_EXECD_REPLACE_H

#include <stddef.h>

#include "agent/core/route.h"

/* Replace every OLD (OLD_LEN > 0) in the regular file PATH with NEW,
 * keeping its mode and owner. A file with no occurrence is left untouched.
 * The count in *REPLACED; 0, or an errno value (EISDIR/EINVAL for what is
 * not a regular file). */
int ag_replace_in_file(const char *path, const char *old, size_t old_len, const char *new, size_t new_len,
		       long long *replaced);

#endif
