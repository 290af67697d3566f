/* file download --recursive: walk a remote tree, stage it, put it in place. */
#ifndef ALLOX_FILE_TREE_H
#define ALLOX_FILE_TREE_H

#include <stdbool.h>
#include <stddef.h>

#include "cmd/file_common.h"

typedef struct ax_file_tree_result {
	unsigned long long bytes;
	size_t files;
	size_t directories;    /* below the root */
} ax_file_tree_result;

/*
 * Download directory REMOTE to ABS (= DIR/BASE). The whole listing is checked
 * first (symlinks, entries escaping REMOTE, unknown types), then every file is
 * streamed into a staging directory DIR/.BASE.<random>.part, which becomes
 * ABS, or, when ABS EXISTS (--force), is merged into it file by file. Any
 * failure removes the staging directory.
 */
int ax_file_tree_download(ax_file_conn *c, ax_file_xfer *t, const char *remote, const char *abs, const char *dir,
			  const char *base, bool exists, ax_file_tree_result *out, ax_error *err);

#endif
