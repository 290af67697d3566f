/* Comparing a secret (the engine's API key, an agent's access token) with what
 * a client sent, without telling the client through timing how much of its
 * guess was right. */
#ifndef ALLOX_LIB_SECRET_H
#define ALLOX_LIB_SECRET_H

#include <stdbool.h>
#include <stddef.h>

/* true when GIVEN (GIVEN_LEN bytes; NULL counts as empty) equals SECRET
 * (SECRET_LEN bytes). The work done depends on SECRET_LEN only: every byte of
 * the secret is compared, whatever the guess's length or where it differs. */
bool ax_secret_equal(const char *secret, size_t secret_len, const char *given, size_t given_len);

#endif
