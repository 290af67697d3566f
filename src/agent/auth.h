/* The per-sandbox access token: read once from the engine, compared on every request. */
#ifndef ALLOX_AGENT_AUTH_H
#define ALLOX_AGENT_AUTH_H

#include <stddef.h>

#include "error.h"

#define AG_TOKEN_MAX 256
#define AG_TOKEN_HEADER "X-EXECD-ACCESS-TOKEN"

/* Read the token from FD (up to AG_TOKEN_MAX visible ASCII bytes, one optional
 * trailing newline) into BUF and close FD. Fails with AX_EXIT_USAGE when the
 * token is missing, empty, too long or malformed. */
int ag_token_read(int fd, char buf[AG_TOKEN_MAX + 1], ax_error *err);

/* 1 when GIVEN (GIVEN_LEN bytes, may be NULL) equals TOKEN. The time taken
 * depends on the length of TOKEN only, so it leaks nothing about a guess. */
int ag_token_equal(const char *token, size_t token_len, const char *given, size_t given_len);

#endif
