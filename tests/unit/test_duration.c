#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/duration.h"

static long long parse_ok(const char *s)
{
	ax_error err;
	long long v = -1;

	assert_int_equal(ax_duration_parse(s, &v, &err), 0);
	return v;
}

static void test_valid(void **state)
{
	(void)state;
	assert_int_equal(parse_ok("90"), 90);
	assert_int_equal(parse_ok("90s"), 90);
	assert_int_equal(parse_ok("10m"), 600);
	assert_int_equal(parse_ok("30m"), 1800);
	assert_int_equal(parse_ok("1h30m"), 5400);
	assert_int_equal(parse_ok("2h"), 7200);
	assert_int_equal(parse_ok("1h2m3s"), 3723);
	assert_int_equal(parse_ok("  45s "), 45);
	assert_int_equal(parse_ok("0"), 0);
}

static void test_invalid(void **state)
{
	static const char *const bad[] = {
		"", "   ", "abc", "10M", "1m1h", "1s1m", "1.5h", "1d", "-5", "5 m", "m", "10mm", "1h1h", "+5",
		"99999999999999999999", "1h 30m", "10x",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ax_error err;
		long long v;

		assert_int_equal(ax_duration_parse(bad[i], &v, &err), -1);
		assert_int_equal(err.exit_code, AX_EXIT_USAGE);
		assert_non_null(strstr(err.message, "1h30m"));
	}
}

static void test_message(void **state)
{
	ax_error err;
	long long v;

	(void)state;
	ax_duration_parse("10x", &v, &err);
	assert_string_equal(err.message,
			    "Invalid duration '10x'. Use seconds (90) or h/m/s units in that order (90s, 10m, 1h30m, 2h).");
}

static void test_nullable(void **state)
{
	static const char *const none[] = { "none", "NONE", "null", "off", "false", "0", " None " };
	ax_error err;
	long long v;
	bool is_none;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof none / sizeof none[0]; i++) {
		assert_int_equal(ax_duration_parse_nullable(none[i], &v, &is_none, &err), 0);
		assert_true(is_none);
	}
	assert_int_equal(ax_duration_parse_nullable("30m", &v, &is_none, &err), 0);
	assert_false(is_none);
	assert_int_equal(v, 1800);
	assert_int_equal(ax_duration_parse_nullable("nope", &v, &is_none, &err), -1);
	assert_non_null(strstr(err.message, "'none' means no expiry"));
	assert_int_equal(ax_duration_parse_nullable("nope", &v, &is_none, NULL), -1);
}

static void test_format(void **state)
{
	char buf[32];

	(void)state;
	ax_duration_format(5400, buf, sizeof buf);
	assert_string_equal(buf, "1h30m");
	ax_duration_format(45, buf, sizeof buf);
	assert_string_equal(buf, "45s");
	ax_duration_format(0, buf, sizeof buf);
	assert_string_equal(buf, "0s");
	ax_duration_format(3723, buf, sizeof buf);
	assert_string_equal(buf, "1h2m3s");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_message),
		cmocka_unit_test(test_nullable),
		cmocka_unit_test(test_format),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
