#ifndef ALLOX_TIMEUTIL_H
#define ALLOX_TIMEUTIL_H

#include <time.h>

/* "2026-12-02T13:40:00+00:00": the session file's format (seconds, explicit offset). */
void ax_time_iso_offset(time_t t, char buf[32]);

/* "2026-12-02T13:40:00Z": RFC 3339 UTC as the lifecycle API writes it. */
void ax_time_rfc3339(time_t t, char buf[32]);

/* Parse RFC 3339 ("2026-12-02T13:40:00Z", fractional seconds and numeric
 * offsets accepted). Returns 0 and sets *T, or -1. */
int ax_time_parse_rfc3339(const char *s, time_t *t);

#endif
