#include "lib/base64.h"

#include <resolv.h>
#include <stdlib.h>
#include <string.h>

int ax_base64_decode(const char *in, size_t len, unsigned char **out, size_t *out_len)
{
	/* b64_pton wants a C string and room for the whole decoded size. */
	char *text = malloc(len + 1);
	unsigned char *buf = malloc(len / 4 * 3 + 3);
	int n;

	*out = NULL;
	*out_len = 0;
	if (!text || !buf) {
		free(text);
		free(buf);
		return -1;
	}
	memcpy(text, in, len);
	text[len] = '\0';
	n = b64_pton(text, buf, len / 4 * 3 + 3);
	free(text);
	if (n < 0) {
		free(buf);
		return -1;
	}
	*out = buf;
	*out_len = (size_t)n;
	return 0;
}
