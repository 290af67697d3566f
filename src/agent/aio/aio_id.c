/* Random (version 4) UUIDs for AIO shell sessions, Jupyter sessions and
 * messages: on its own so the extension module (ext.h) can carry it without
 * the session registry. */
#include "agent/aio/aio_session.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/random.h>
#include <time.h>

void aio_session_new_id(char id[37])
{
	unsigned char b[16];
	struct timespec t;
	size_t got = 0, i;
	uint64_t x;
	ssize_t n;

	while (got < sizeof b) {
		n = getrandom(b + got, sizeof b - got, 0);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	/* getrandom cannot fail short of a pre-3.17 kernel; the clock mixed by
	 * xorshift still gives ids unique enough for a session map. */
	if (got < sizeof b) {
		clock_gettime(CLOCK_REALTIME, &t);
		x = ((uint64_t)t.tv_sec * 1000000007u) ^ (uint64_t)t.tv_nsec ^ (uint64_t)(uintptr_t)&t;
		for (i = 0; i < sizeof b; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			b[i] = (unsigned char)x;
		}
	}
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	snprintf(id, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
		 b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}
