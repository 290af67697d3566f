/* The "host" image's mask of what host users may not read (host_mask.c). */
#ifndef ALLOX_HOST_MASK_H
#define ALLOX_HOST_MASK_H

#include <stddef.h>

#include "lib/ax_error.h"

/* Scan the host and return in OUT the mask layer for what it keeps from
 * its unprivileged users (built under IMAGE_DIR when new): OUT/etc,
 * OUT/var... go above the host's directories. NOTE gets what is not masked. */
int ax_host_mask_get(const char *image_dir, char *out, size_t len, char *note, size_t notelen, ax_error *err);

#endif
