#include "lib/secret.h"

bool ax_secret_equal(const char *secret, size_t secret_len, const char *given, size_t given_len)
{
	/* volatile: the compiler may not turn the loop into an early-exit memcmp. */
	volatile unsigned char diff = 0;
	size_t i;

	if (!given)
		given_len = 0;
	diff |= (unsigned char)(secret_len != given_len);
	for (i = 0; i < secret_len; i++) {
		/* Past the guess's end, compare with 0: a shorter guess costs the same. */
		unsigned char g = i < given_len ? (unsigned char)given[i] : 0;

		diff |= (unsigned char)((unsigned char)secret[i] ^ g);
	}
	return diff == 0;
}
