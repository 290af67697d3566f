#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>

#include "lib/http_retry.h"

static void test_get_retried_on_transport_failure(void **state)
{
	(void)state;
	assert_true(ax_http_should_retry("GET", true, 0, 1));
	assert_true(ax_http_should_retry("GET", true, 0, 2));
	assert_true(ax_http_should_retry("HEAD", true, 0, 1));
}

static void test_get_retried_on_gateway_statuses(void **state)
{
	static const long transient[] = { 502, 503, 504 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof transient / sizeof transient[0]; i++)
		assert_true(ax_http_should_retry("GET", false, transient[i], 1));
}

static void test_final_answers_not_retried(void **state)
{
	static const long final[] = { 200, 201, 204, 301, 400, 401, 403, 404, 409, 429, 500, 501, 505 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof final / sizeof final[0]; i++)
		assert_false(ax_http_should_retry("GET", false, final[i], 1));
}

static void test_writes_never_retried(void **state)
{
	static const char *const writes[] = { "POST", "PUT", "PATCH", "DELETE", "get", "", NULL };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof writes / sizeof writes[0]; i++) {
		assert_false(ax_http_should_retry(writes[i], true, 0, 1));
		assert_false(ax_http_should_retry(writes[i], false, 503, 1));
	}
}

static void test_attempts_bounded(void **state)
{
	(void)state;
	/* Attempts 1 and 2 may be followed by another; the third is the last. */
	assert_true(ax_http_should_retry("GET", false, 503, AX_HTTP_RETRY_ATTEMPTS - 1));
	assert_false(ax_http_should_retry("GET", false, 503, AX_HTTP_RETRY_ATTEMPTS));
	assert_false(ax_http_should_retry("GET", true, 0, AX_HTTP_RETRY_ATTEMPTS + 5));
	assert_false(ax_http_should_retry("GET", true, 0, 0));
	assert_false(ax_http_should_retry("GET", true, 0, -1));
}

static void test_backoff_grows_with_jitter(void **state)
{
	(void)state;
	/* random 0.5 is the middle: no jitter. */
	assert_int_equal(ax_http_backoff_ms(1, 0.5), 50);
	assert_int_equal(ax_http_backoff_ms(2, 0.5), 100);
	assert_int_equal(ax_http_backoff_ms(3, 0.5), 200);
	/* The ends of the jitter range: -50% and (almost) +50%. */
	assert_int_equal(ax_http_backoff_ms(1, 0.0), 25);
	assert_int_equal(ax_http_backoff_ms(2, 0.0), 50);
	assert_in_range(ax_http_backoff_ms(1, 0.999999), 74, 75);
	assert_in_range(ax_http_backoff_ms(3, 0.999999), 299, 300);
}

static void test_backoff_within_bounds_for_any_random(void **state)
{
	int attempt, k;

	(void)state;
	for (attempt = 1; attempt <= 4; attempt++) {
		long nominal = 50L << (attempt - 1);

		for (k = 0; k < 100; k++) {
			long ms = ax_http_backoff_ms(attempt, k / 100.0);

			assert_in_range(ms, nominal / 2, nominal * 3 / 2);
		}
	}
}

static void test_backoff_capped_and_clamped(void **state)
{
	(void)state;
	assert_int_equal(ax_http_backoff_ms(10, 0.999), AX_HTTP_RETRY_CAP_MS);
	assert_int_equal(ax_http_backoff_ms(1000000, 0.0), AX_HTTP_RETRY_CAP_MS);
	assert_int_equal(ax_http_backoff_ms(0, 0.5), 50);
	assert_int_equal(ax_http_backoff_ms(-3, 0.5), 50);
	assert_int_equal(ax_http_backoff_ms(1, -1.0), 25);
	assert_int_equal(ax_http_backoff_ms(1, 7.0), 75);
	assert_int_equal(ax_http_backoff_ms(1, NAN), 25);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_get_retried_on_transport_failure),
		cmocka_unit_test(test_get_retried_on_gateway_statuses),
		cmocka_unit_test(test_final_answers_not_retried),
		cmocka_unit_test(test_writes_never_retried),
		cmocka_unit_test(test_attempts_bounded),
		cmocka_unit_test(test_backoff_grows_with_jitter),
		cmocka_unit_test(test_backoff_within_bounds_for_any_random),
		cmocka_unit_test(test_backoff_capped_and_clamped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
