/*
 * When to try an HTTP request again, and how long to wait first. Pure
 * functions, so the policy is tested without a network:
 *  - only idempotent reads (GET, HEAD) are retried; a POST, PUT, PATCH or
 *    DELETE may have taken effect before the failure, and streams are never
 *    sent through the retrying call;
 *  - only on transport failures (refused, reset, timeout, empty reply) and
 *    502/503/504, which say "not now" rather than "no";
 *  - at most AX_HTTP_RETRY_ATTEMPTS attempts in all;
 *  - waits grow exponentially with +-50% jitter, so clients that failed
 *    together do not come back together, and are capped.
 */
#ifndef ALLOX_HTTP_RETRY_H
#define ALLOX_HTTP_RETRY_H

#include <stdbool.h>

enum {
	AX_HTTP_RETRY_ATTEMPTS = 3,     /* attempts in all, the first one included */
	AX_HTTP_RETRY_BASE_MS = 50,     /* the wait before the second attempt, before jitter */
	AX_HTTP_RETRY_CAP_MS = 2000,    /* no wait is longer */
};

/* After attempt number ATTEMPT (1 = the first) of METHOD ended with a
 * transport failure (TRANSPORT_FAILED) or with HTTP STATUS: try again? */
bool ax_http_should_retry(const char *method, bool transport_failed, long status, int attempt);

/* How long to wait after attempt ATTEMPT (1-based) before the next one:
 * BASE * 2^(ATTEMPT-1), scaled by 0.5 + RANDOM (RANDOM in [0, 1), so +-50%),
 * at most the cap. Out-of-range arguments are clamped. */
long ax_http_backoff_ms(int attempt, double random);

#endif
