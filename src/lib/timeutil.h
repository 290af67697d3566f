#ifndef ALLOX_TIMEUTIL_H
#define ALLOX_TIMEUTIL_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC, for timeouts and elapsed times: it does not jump when
 * the wall clock is set. Milliseconds, nanoseconds, and seconds to the
 * nanosecond. */
int64_t ax_mono_ms(void);
int64_t ax_mono_ns(void);
double ax_mono_s(void);

/* The CLOCK_MONOTONIC time MS milliseconds from now (MS <= 0: now), as
 * pthread_cond_timedwait takes it on a condition from ax_mono_cond_init. */
struct timespec ax_mono_deadline(int64_t ms);

/* pthread_cond_init on CLOCK_MONOTONIC, so timed waits keep their length
 * when the wall clock is set. 0 or an errno value. */
int ax_mono_cond_init(pthread_cond_t *cond);

/* "2026-12-02T13:40:00+00:00": the session file's format (seconds, explicit offset). */
void ax_time_iso_offset(time_t t, char buf[32]);

/* "2026-12-02T13:40:00Z": RFC 3339 UTC as the lifecycle API writes it. */
void ax_time_rfc3339(time_t t, char buf[32]);

/* Parse RFC 3339 ("2026-12-02T13:40:00Z", fractional seconds and numeric
 * offsets accepted). Returns 0 and sets *T, or -1. */
int ax_time_parse_rfc3339(const char *s, time_t *t);

#endif
