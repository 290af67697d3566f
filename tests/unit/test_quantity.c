#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/quantity.h"

static long long ok(ax_limit_kind kind, const char *s)
{
	const char *why = NULL;
	long long v = -1;

	if (ax_limit_parse(kind, s, &v, &why) != 0)
		fail_msg("'%s' refused: %s", s, why);
	return v;
}

static const char *refused(ax_limit_kind kind, const char *s)
{
	const char *why = NULL;
	long long v = 7;

	if (ax_limit_parse(kind, s, &v, &why) == 0)
		fail_msg("'%s' accepted as %lld", s, v);
	assert_int_equal(v, 0);
	assert_non_null(why);
	return why;
}

static void test_cpu(void **state)
{
	static const char *const bad[] = { "", "m", "1.", ".", "1.2345", "-1", "+1", "1 ", " 1", "1e3", "1mm",
					   "0.5m", "one", "1,5" };
	(void)state;
	assert_int_equal(ok(AX_LIMIT_CPU, "1"), 1000);
	assert_int_equal(ok(AX_LIMIT_CPU, "2"), 2000);
	assert_int_equal(ok(AX_LIMIT_CPU, "0.5"), 500);
	assert_int_equal(ok(AX_LIMIT_CPU, ".25"), 250);
	assert_int_equal(ok(AX_LIMIT_CPU, "2.5"), 2500);
	assert_int_equal(ok(AX_LIMIT_CPU, "1.125"), 1125);
	assert_int_equal(ok(AX_LIMIT_CPU, "500m"), 500);
	assert_int_equal(ok(AX_LIMIT_CPU, "10m"), 10);
	assert_int_equal(ok(AX_LIMIT_CPU, "4096"), 4096000);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_string_equal(refused(AX_LIMIT_CPU, bad[i]), "expected a number of CPUs such as 1, 0.5 or 500m");
	assert_string_equal(refused(AX_LIMIT_CPU, "0"), "must be from 10m to 4096 CPUs");
	assert_string_equal(refused(AX_LIMIT_CPU, "9m"), "must be from 10m to 4096 CPUs");
	assert_string_equal(refused(AX_LIMIT_CPU, "4097"), "must be from 10m to 4096 CPUs");
	assert_string_equal(refused(AX_LIMIT_CPU, "99999999999999999999999"), "must be from 10m to 4096 CPUs");
	assert_string_equal(refused(AX_LIMIT_CPU, "99999999999999999999999m"), "must be from 10m to 4096 CPUs");
}

static void test_sizes(void **state)
{
	static const char *const bad[] = { "", "Mi", "1.", "1.5.5", "-1Gi", "1 Gi", "1GB", "1gi", "1Mib", "0x10",
					   "1e9", "1.0000000001Gi" };
	(void)state;
	assert_int_equal(ok(AX_LIMIT_MEMORY, "512Mi"), 512LL << 20);
	assert_int_equal(ok(AX_LIMIT_MEMORY, "2Gi"), 2LL << 30);
	assert_int_equal(ok(AX_LIMIT_MEMORY, "1.5Gi"), 3LL << 29);
	assert_int_equal(ok(AX_LIMIT_MEMORY, "100M"), 100000000);
	assert_int_equal(ok(AX_LIMIT_MEMORY, "1G"), 1000000000);
	assert_int_equal(ok(AX_LIMIT_MEMORY, "33554432"), 32LL << 20);
	assert_int_equal(ok(AX_LIMIT_MEMORY, "32768Ki"), 32LL << 20);
	assert_int_equal(ok(AX_LIMIT_MEMORY, "1Ti"), 1LL << 40);
	assert_int_equal(ok(AX_LIMIT_MEMORY, "1024Ti"), 1LL << 50);
	/* A fraction of a byte rounds up. */
	assert_int_equal(ok(AX_LIMIT_DISK, "1.1Mi"), 1153434);
	assert_int_equal(ok(AX_LIMIT_DISK, "1Mi"), 1LL << 20);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_string_equal(refused(AX_LIMIT_MEMORY, bad[i]), "expected a size such as 512Mi, 2Gi or 100M");
	assert_string_equal(refused(AX_LIMIT_MEMORY, "33554431"), "must be at least 32Mi");
	assert_string_equal(refused(AX_LIMIT_MEMORY, "0"), "must be at least 32Mi");
	assert_string_equal(refused(AX_LIMIT_DISK, "1000Ki"), "must be at least 1Mi");
	assert_string_equal(refused(AX_LIMIT_MEMORY, "1025Ti"), "must be at most 1Pi");
	assert_string_equal(refused(AX_LIMIT_MEMORY, "1024.5Ti"), "must be at most 1Pi");
	assert_string_equal(refused(AX_LIMIT_DISK, "99999999999999999999999999"), "must be at most 1Pi");
}

static void test_pids(void **state)
{
	(void)state;
	assert_int_equal(ok(AX_LIMIT_PIDS, "1024"), 1024);
	assert_int_equal(ok(AX_LIMIT_PIDS, "16"), 16);
	assert_int_equal(ok(AX_LIMIT_PIDS, "4194304"), 4194304);
	assert_string_equal(refused(AX_LIMIT_PIDS, "15"), "must be from 16 to 4194304");
	assert_string_equal(refused(AX_LIMIT_PIDS, "4194305"), "must be from 16 to 4194304");
	assert_string_equal(refused(AX_LIMIT_PIDS, "99999999999999999999999"), "must be from 16 to 4194304");
	assert_string_equal(refused(AX_LIMIT_PIDS, "1k"), "expected a whole number of processes such as 1024");
	assert_string_equal(refused(AX_LIMIT_PIDS, "-5"), "expected a whole number of processes such as 1024");
	assert_string_equal(refused(AX_LIMIT_PIDS, ""), "expected a whole number of processes such as 1024");
	assert_string_equal(refused(AX_LIMIT_PIDS, NULL), "expected a whole number of processes such as 1024");
}

static void test_keys(void **state)
{
	(void)state;
	assert_string_equal(ax_limit_key(AX_LIMIT_CPU), "cpu");
	assert_string_equal(ax_limit_key(AX_LIMIT_MEMORY), "memory");
	assert_string_equal(ax_limit_key(AX_LIMIT_PIDS), "pids");
	assert_string_equal(ax_limit_key(AX_LIMIT_DISK), "ephemeral-storage");
	assert_string_equal(refused(AX_LIMIT_CPU, NULL), "expected a number of CPUs such as 1, 0.5 or 500m");
	assert_string_equal(refused(AX_LIMIT_MEMORY, NULL), "expected a size such as 512Mi, 2Gi or 100M");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_pids),
		cmocka_unit_test(test_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
