#include "base64.h"

#include <limits.h>
#include <openssl/evp.h>
#include <stdlib.h>

int ax_base64_decode(const char *in, size_t len, unsigned char **out, size_t *out_len)
{
	EVP_ENCODE_CTX *ctx;
	unsigned char *buf;
	int n = 0, fin = 0, rc;

	*out = NULL;
	*out_len = 0;
	if (len > INT_MAX)
		return -1;
	buf = malloc(len / 4 * 3 + 3);
	ctx = EVP_ENCODE_CTX_new();
	if (!buf || !ctx) {
		free(buf);
		EVP_ENCODE_CTX_free(ctx);
		return -1;
	}
	EVP_DecodeInit(ctx);
	rc = EVP_DecodeUpdate(ctx, buf, &n, (const unsigned char *)in, (int)len);
	if (rc >= 0)
		rc = EVP_DecodeFinal(ctx, buf + n, &fin);
	EVP_ENCODE_CTX_free(ctx);
	if (rc < 0) {
		free(buf);
		return -1;
	}
	*out = buf;
	*out_len = (size_t)n + (size_t)fin;
	return 0;
}
