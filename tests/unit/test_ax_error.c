#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/ax_error.h"

/* Scripts match the names: each is unique, upper case, and not empty. */
static void test_names_unique(void **state)
{
	(void)state;
	for (int a = AX_CODE_NONE + 1; a < AX_CODE_COUNT; a++) {
		const char *n = ax_code_name((ax_code)a);

		assert_true(n[0] != '\0');
		assert_int_equal(strspn(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_"), strlen(n));
		for (int b = a + 1; b < AX_CODE_COUNT; b++)
			assert_string_not_equal(n, ax_code_name((ax_code)b));
	}
}

/* The exit status comes from the code, not from the caller. */
static void test_exit_from_table(void **state)
{
	ax_error err;

	(void)state;
	ax_fail(&err, AX_CODE_USAGE, "bad %s", "word");
	assert_int_equal(err.exit_code, AX_EXIT_USAGE);
	assert_string_equal(ax_error_code_name(&err), "USAGE");
	assert_string_equal(err.message, "bad word");
	ax_fail(&err, AX_CODE_INVALID_DURATION, "x");
	assert_int_equal(err.exit_code, AX_EXIT_USAGE);
	ax_fail(&err, AX_CODE_IO, "x");
	assert_int_equal(err.exit_code, AX_EXIT_FAILURE);
	ax_fail(&err, AX_CODE_INTERRUPTED, "x");
	assert_int_equal(err.exit_code, 130);
	ax_fail_signal(&err, SIGTERM, "Terminated");
	assert_int_equal(err.code, AX_CODE_INTERRUPTED);
	assert_int_equal(err.exit_code, 143);
}

/* A server's own code replaces the generic HTTP, and only until the next failure. */
static void test_peer_code(void **state)
{
	ax_error err;

	(void)state;
	ax_fail(&err, AX_CODE_HTTP, "Sandbox error");
	assert_string_equal(ax_error_code_name(&err), "HTTP");
	ax_error_peer_code(&err, "SANDBOX::NOT_FOUND");
	assert_string_equal(ax_error_code_name(&err), "SANDBOX::NOT_FOUND");
	assert_int_equal(err.exit_code, AX_EXIT_FAILURE);
	ax_error_peer_code(&err, "A\nB");
	assert_string_equal(ax_error_code_name(&err), "A?B");
	ax_fail(&err, AX_CODE_IO, "x");
	assert_string_equal(ax_error_code_name(&err), "IO");
}

static void test_unknown_code(void **state)
{
	ax_error err;

	(void)state;
	ax_error_clear(&err);
	assert_string_equal(ax_error_code_name(&err), "ERROR");
	assert_string_equal(ax_code_name(AX_CODE_COUNT), "ERROR");
	assert_int_equal(ax_code_exit(AX_CODE_COUNT), AX_EXIT_FAILURE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_unique),
		cmocka_unit_test(test_exit_from_table),
		cmocka_unit_test(test_peer_code),
		cmocka_unit_test(test_unknown_code),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
