#include "lib/http_retry.h"

#include <string.h>

static bool idempotent_read(const char *method)
{
	return method && (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0);
}

/* The gateway and overload answers: the request did not reach a handler or
 * was turned away before doing anything. A 500 may have half-done the work. */
static bool transient_status(long status)
{
	return status == 502 || status == 503 || status == 504;
}

bool ax_http_should_retry(const char *method, bool transport_failed, long status, int attempt)
{
	if (attempt < 1 || attempt >= AX_HTTP_RETRY_ATTEMPTS || !idempotent_read(method))
		return false;
	return transport_failed || transient_status(status);
}

long ax_http_backoff_ms(int attempt, double random)
{
	double ms = AX_HTTP_RETRY_BASE_MS;
	int i;

	if (!(random >= 0.0))   /* also NaN */
		random = 0.0;
	if (random >= 1.0)
		random = 1.0;
	/* Stop doubling once even the low end of the jitter is over the cap. */
	for (i = 1; i < attempt && ms < 2.0 * AX_HTTP_RETRY_CAP_MS; i++)
		ms *= 2;
	ms *= 0.5 + random;
	return ms > AX_HTTP_RETRY_CAP_MS ? AX_HTTP_RETRY_CAP_MS : (long)ms;
}
