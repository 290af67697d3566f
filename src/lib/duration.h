/* Durations as users type them: 90, 90s, 10m, 1h30m, 2h. */
#ifndef ALLOX_DURATION_H
#define ALLOX_DURATION_H

#include <stdbool.h>

#include "lib/ax_error.h"

/* Parse S into *SECONDS. Errors are usage errors (exit 2) naming the accepted forms. */
int ax_duration_parse(const char *s, long long *seconds, ax_error *err);

/* Like ax_duration_parse, but "none", "null", "off", "false" and "0"
 * (any case) mean no expiry: *NONE is set and *SECONDS is 0. */
int ax_duration_parse_nullable(const char *s, long long *seconds, bool *none, ax_error *err);

/* Write SECONDS as the shortest canonical form ("1h30m", "45s", "0s") into BUF. */
void ax_duration_format(long long seconds, char *buf, unsigned size);

#endif
