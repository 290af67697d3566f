/* Properties every decoder's failure must have, shared by the API targets. */
#ifndef ALLOX_FUZZ_CHECK_H
#define ALLOX_FUZZ_CHECK_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ax_error.h"

/* A failure is one non-empty line without control bytes, with a code
 * and, in the server's code it passes on, no control bytes either. */
static inline void fuzz_check_error(const ax_error *e)
{
	const char *p;

	if (!e->message[0] || e->code == AX_CODE_NONE || (e->exit_code != AX_EXIT_FAILURE && e->exit_code != AX_EXIT_USAGE))
		abort();
	for (p = e->message; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			abort();
	for (p = e->hint; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			abort();
	for (p = e->peer_code; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			abort();
}

/* The body as a server sends it: exactly SIZE bytes, no NUL after them, so
 * that ASan catches a decoder reading past LEN. */
static inline char *fuzz_body(const uint8_t *data, size_t size)
{
	char *b = malloc(size ? size : 1);

	if (!b)
		abort();
	if (size)
		memcpy(b, data, size);
	return b;
}

/* A status from one byte: mostly the expected one, else an error class. */
static inline long fuzz_status(uint8_t b, long expect)
{
	static const long other[] = { 400, 401, 404, 409, 422, 500, 502, 503, 201, 204, 302, 0 };

	return b & 1 ? expect : other[(b >> 1) % (sizeof other / sizeof other[0])];
}

#endif
