/* Base64 as JSON protocols carry binary data (Jupyter images, MCP content,
 * CDP screenshots), decoded with the C library's b64_pton (libresolv): the CLI
 * need not load OpenSSL for it. */
#ifndef ALLOX_BASE64_H
#define ALLOX_BASE64_H

#include <stddef.h>

/* Decode the base64 text IN (LEN bytes; whitespace allowed, as ipykernel
 * ends it with a newline) into *OUT (malloc'd, *OUT_LEN bytes). -1 on ENOMEM
 * or text that is not base64. */
int ax_base64_decode(const char *in, size_t len, unsigned char **out, size_t *out_len);

#endif
