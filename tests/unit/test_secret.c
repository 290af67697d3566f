/* ax_secret_equal: the engine's API-key and the agent's token check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/secret.h"

static const char KEY[] = "k3y-0123456789abcdef";

static bool eq(const char *given)
{
	return ax_secret_equal(KEY, strlen(KEY), given, given ? strlen(given) : 0);
}

static void test_equal(void **state)
{
	(void)state;
	assert_true(eq("k3y-0123456789abcdef"));
	assert_true(ax_secret_equal("", 0, "", 0));
	assert_true(ax_secret_equal("", 0, NULL, 0));
}

static void test_differs(void **state)
{
	(void)state;
	assert_false(eq(NULL));
	assert_false(eq(""));
	assert_false(eq("x3y-0123456789abcdef"));   /* first byte */
	assert_false(eq("k3y-0123456789abcdeF"));   /* last byte */
	assert_false(eq("k3y-0123456789abcde"));    /* a prefix */
	assert_false(eq("k3y-0123456789abcdef0"));  /* the key and more */
	assert_false(eq("k3y-0123456789abcdef\n")); /* a trailing newline */
	assert_false(ax_secret_equal("", 0, "x", 1));
	/* A byte that differs only in its high bit. */
	assert_false(eq("k3y-0123456789abcde\xe6"));
}

/* Lengths, not NUL bytes, delimit both sides: an embedded NUL in the guess
 * is a difference, and the check never reads past the guess's length (a
 * buffer without a terminator; ASan builds would report an overread). */
static void test_lengths(void **state)
{
	char *exact = malloc(strlen(KEY));
	char nul[sizeof KEY];

	(void)state;
	assert_non_null(exact);
	memcpy(exact, KEY, strlen(KEY));
	assert_true(ax_secret_equal(KEY, strlen(KEY), exact, strlen(KEY)));
	assert_false(ax_secret_equal(KEY, strlen(KEY), exact, 3));
	free(exact);
	memcpy(nul, KEY, sizeof KEY);
	nul[4] = '\0';
	assert_false(ax_secret_equal(KEY, strlen(KEY), nul, strlen(KEY)));
	assert_true(ax_secret_equal(KEY, 4, nul, 4));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_equal),
		cmocka_unit_test(test_differs),
		cmocka_unit_test(test_lengths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
