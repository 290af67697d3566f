/* The HTTP client's pure parts: query escaping and response header lookup. */
#include <fcntl.h>
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/http.h"
#include "lib/http_backend.h"

static void expect_escape(const char *in, const char *want)
{
	char *got = ax_http_escape(in);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_escape(void **state)
{
	(void)state;
	expect_escape("", "");
	expect_escape("AZaz09-._~", "AZaz09-._~");
	expect_escape("/home/gem/a b.txt", "%2Fhome%2Fgem%2Fa%20b.txt");
	expect_escape("a&b=c?d#e%", "a%26b%3Dc%3Fd%23e%25");
	expect_escape("\n\x1b", "%0A%1B");
	expect_escape("caf\xc3\xa9", "caf%C3%A9");
}

/* Bytes above 127 are escaped whatever the locale says about them. */
static void test_escape_locale(void **state)
{
	(void)state;
	if (setlocale(LC_ALL, "C.UTF-8"))
		expect_escape("\xc3\xa9", "%C3%A9");
	setlocale(LC_ALL, "C");
}

static void test_headers(void **state)
{
	ax_http c;
	ax_error err;

	(void)state;
	assert_int_equal(ax_http_init(&c, "http://localhost/v1", NULL, 5, &err), 0);
	assert_null(ax_http_last_header(&c, "Content-Type"));
	ax_http_header_note(&c, "cOnTeNt-TyPe", 12, " application/json \r\n", 20);
	ax_http_header_note(&c, "X-Allox-Snapshot-Size", 21, "\t42", 3);
	assert_string_equal(ax_http_last_header(&c, "content-type"), "application/json");
	assert_string_equal(ax_http_last_header(&c, "CONTENT-TYPE"), "application/json");
	assert_string_equal(ax_http_last_header(&c, "x-allox-snapshot-size"), "42");
	ax_http_headers_reset(&c);
	assert_null(ax_http_last_header(&c, "Content-Type"));
	ax_http_free(&c);
}

/* Freeing a zeroed, never initialised client closes nothing (not fd 0). */
static void test_free_zeroed(void **state)
{
	ax_http c;

	(void)state;
	memset(&c, 0, sizeof c);
	ax_http_free(&c);
	assert_true(fcntl(0, F_GETFD) >= 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_escape_locale),
		cmocka_unit_test(test_headers),
		cmocka_unit_test(test_free_zeroed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
