/* The per-sandbox access token: read once from the engine, compared on every request. */
#ifndef ALLOX_AGENT_AUTH_H
#define ALLOX_AGENT_AUTH_H

#include <stddef.h>

#include "lib/ax_error.h"

#define AG_TOKEN_MAX 256
#define AG_TOKEN_HEADER "X-EXECD-ACCESS-TOKEN"

/* Read the token from FD (up to AG_TOKEN_MAX visible ASCII bytes, one optional
 * trailing newline) into BUF and close FD. Fails with AX_EXIT_USAGE when the
 * token is missing, empty, too long or malformed. */
int ag_token_read(int fd, char buf[AG_TOKEN_MAX + 1], ax_error *err);

/* Requests are checked with ax_secret_equal (src/lib/secret.h): constant time. */

#endif
