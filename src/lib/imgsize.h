/* The format and pixel size of a PNG or JPEG image from its bytes: the PNG
 * signature and IHDR chunk, or the JPEG's first start-of-frame marker.
 * Shared by the agent (screenshot headers) and the client (what it saved). */
#ifndef ALLOX_IMGSIZE_H
#define ALLOX_IMGSIZE_H

#include <stddef.h>

/* 0 with *FORMAT ("png" or "jpeg"), *WIDTH and *HEIGHT, or -1 when BUF holds
 * neither a PNG nor a JPEG whose size can be read. */
int ax_image_size(const unsigned char *buf, size_t len, const char **format, int *width, int *height);

#endif
