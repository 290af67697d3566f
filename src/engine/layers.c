/*
 * Captured layers: a checkpoint's copy of a sandbox's writable overlay
 * layer, and its size on disk.
 *
 * The copy is made in process (layer_copy.c), which keeps what cp -a keeps
 * without cp's start-up; a tree so deep that it runs the engine out of fds
 * is copied again by coreutils' `cp -a`, whose walk keeps only a few.
 */
#include "engine/engine.h"
#include "engine/runtime/layer_copy.h"
#include "engine/runtime/runtime.h"
#include "engine/runtime/tool.h"

#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CP_PATH "/bin/cp"

static int cp_a(const char *src, const char *dst, ax_error *err)
{
	char *const argv[] = { (char *)"cp", (char *)"-a", (char *)"--reflink=auto", (char *)"--",
			       (char *)src, (char *)dst, NULL };

	return ax_tool_run(CP_PATH, argv, "copying the layer", err);
}

/* What cp -a made, as the in-process copy counts it. */
static long long layer_size(const char *dir)
{
	char *const paths[] = { (char *)dir, NULL };
	FTS *fts = fts_open(paths, FTS_PHYSICAL | FTS_XDEV | FTS_NOCHDIR, NULL);
	FTSENT *ent;
	long long total = 0;
	int failed = 0;

	if (!fts)
		return -1;
	while ((ent = fts_read(fts))) {
		const struct stat *st = ent->fts_statp;

		if (ent->fts_info == FTS_DP)
			continue;
		if (ent->fts_info == FTS_NS || ent->fts_info == FTS_DNR || ent->fts_info == FTS_ERR) {
			failed = 1;
			continue;
		}
		/* A hard-linked file counts once across its names. */
		total += (long long)st->st_blocks * 512 /
			 (st->st_nlink > 1 && !S_ISDIR(st->st_mode) ? (long long)st->st_nlink : 1);
	}
	fts_close(fts);
	return failed ? -1 : total;
}

int ax_layer_copy(const char *src, const char *dst, long long *bytes, ax_error *err)
{
	int rc = ax_layer_copy_tree(src, dst, AX_COPY_SKIP_EMPTY_TOP, bytes, err);

	if (rc != AX_COPY_OUT_OF_FDS)
		return rc;
	ax_error_clear(err);
	if (ax_rt_remove_state(dst, err) < 0 || cp_a(src, dst, err) < 0)
		return -1;
	*bytes = layer_size(dst);
	if (*bytes < 0)
		*bytes = 0;
	return 0;
}
