/* The in-process copy of a sandbox's writable layer (layer_copy.c). */
#ifndef ALLOX_ENGINE_LAYER_COPY_H
#define ALLOX_ENGINE_LAYER_COPY_H

#include "lib/ax_error.h"

/* Returned when a deep tree ran the process out of fds: ERR says where; the
 * caller falls back to cp -a. */
#define AX_COPY_OUT_OF_FDS 1

/* FLAGS: leave out empty directories right under SRC without xattrs but
 * overlayfs' uuid stamp (the untouched upper directories of a writable
 * layer). */
#define AX_COPY_SKIP_EMPTY_TOP 1

/* Copy directory SRC to DST (which must not exist) as cp -a would. 0 (and
 * the copy's size on disk in *BYTES when BYTES is not NULL), -1 with ERR, or
 * AX_COPY_OUT_OF_FDS with ERR. DST may be left half-made. */
int ax_layer_copy_tree(const char *src, const char *dst, int flags, long long *bytes, ax_error *err);

#endif
