#include "lib/imgsize.h"

#include <string.h>

static unsigned long be32(const unsigned char *p)
{
	return (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 | (unsigned long)p[2] << 8 | p[3];
}

static unsigned be16(const unsigned char *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

/* Signature, then the first chunk must be IHDR (length 13): width, height. */
static int png_size(const unsigned char *b, size_t len, int *w, int *h)
{
	static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	unsigned long width, height;

	if (len < 24 || memcmp(b, sig, 8) != 0 || be32(b + 8) != 13 || memcmp(b + 12, "IHDR", 4) != 0)
		return -1;
	width = be32(b + 16);
	height = be32(b + 20);
	/* The PNG spec caps both at 2^31 - 1 and forbids 0. */
	if (width == 0 || height == 0 || width > 0x7fffffffUL || height > 0x7fffffffUL)
		return -1;
	*w = (int)width;
	*h = (int)height;
	return 0;
}

/* Walk the segments after SOI to the first SOFn (C0..CF but C4 DHT, C8 JPG,
 * CC DAC): precision, height, width. */
static int jpeg_size(const unsigned char *b, size_t len, int *w, int *h)
{
	size_t i = 2;

	if (len < 4 || b[0] != 0xff || b[1] != 0xd8)
		return -1;
	while (i + 4 <= len) {
		unsigned marker, seglen;

		if (b[i] != 0xff)
			return -1;
		marker = b[i + 1];
		if (marker == 0xff) {   /* fill byte */
			i++;
			continue;
		}
		if (marker == 0xd8 || marker == 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
			i += 2;         /* markers without a length */
			continue;
		}
		if (marker == 0xd9 || marker == 0xda)
			return -1;      /* end of image or scan data before any frame */
		seglen = be16(b + i + 2);
		if (seglen < 2)
			return -1;
		if (marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 && marker != 0xcc) {
			if (seglen < 7 || i + 9 > len)
				return -1;
			*h = (int)be16(b + i + 5);
			*w = (int)be16(b + i + 7);
			return *w > 0 && *h > 0 ? 0 : -1;
		}
		i += 2 + seglen;
	}
	return -1;
}

int ax_image_size(const unsigned char *buf, size_t len, const char **format, int *width, int *height)
{
	if (png_size(buf, len, width, height) == 0) {
		*format = "png";
		return 0;
	}
	if (jpeg_size(buf, len, width, height) == 0) {
		*format = "jpeg";
		return 0;
	}
	return -1;
}
