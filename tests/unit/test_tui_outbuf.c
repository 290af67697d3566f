#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "ui/outbuf.h"

static void feed(ax_outbuf *b, const char *s)
{
	ax_outbuf_append(b, s, strlen(s));
}

static void test_lines_across_chunks(void **state)
{
	ax_outbuf b;

	(void)state;
	ax_outbuf_init(&b);
	feed(&b, "hel");
	feed(&b, "lo\nwor");
	assert_int_equal(b.n, 2);
	assert_true(b.open);
	feed(&b, "ld\n\n");
	assert_int_equal(b.n, 3);
	assert_false(b.open);
	assert_string_equal(b.lines[0], "hello");
	assert_string_equal(b.lines[1], "world");
	assert_string_equal(b.lines[2], "");
	ax_outbuf_free(&b);
}

static void test_carriage_return_and_escapes(void **state)
{
	ax_outbuf b;

	(void)state;
	ax_outbuf_init(&b);
	/* A progress bar rewrites its line; CRLF is a plain newline. */
	feed(&b, " 10%\r 50%\r100%\r\ndone\r\n");
	assert_int_equal(b.n, 2);
	assert_string_equal(b.lines[0], "100%");
	assert_string_equal(b.lines[1], "done");
	/* Colour sequences are dropped, even split across chunks; tabs become spaces. */
	feed(&b, "\033[1;3");
	feed(&b, "1mred\033[0m\tx\n");
	assert_string_equal(b.lines[2], "red     x");
	ax_outbuf_free(&b);
}

/* hostile.sh: what a command prints must not drive the terminal. An OSC
 * title goes with its text (to BEL or ST), ESC ( B with its final byte. */
static void test_hostile_escapes(void **state)
{
	ax_outbuf b;
	size_t i;

	(void)state;
	ax_outbuf_init(&b);
	feed(&b, "a\033]0;pwned\007b\033[2Jc\033]2;t\033\\d\033(Be\033P1$r\033\\f\n");
	feed(&b, "g\033]0;split");
	feed(&b, " title\007h\n");
	assert_int_equal(b.n, 2);
	assert_string_equal(b.lines[0], "abcdef");
	assert_string_equal(b.lines[1], "gh");
	for (i = 0; i < b.n; i++)
		assert_null(strchr(b.lines[i], '\033'));
	ax_outbuf_free(&b);
}

static void test_shell_lines_close_open_output(void **state)
{
	ax_outbuf b;

	(void)state;
	ax_outbuf_init(&b);
	feed(&b, "no newline");
	ax_outbuf_line(&b, "x exit %d", 1);
	assert_int_equal(b.n, 2);
	assert_string_equal(b.lines[0], "no newline");
	assert_string_equal(b.lines[1], "x exit 1");
	ax_outbuf_clear(&b);
	assert_int_equal(b.n, 0);
	ax_outbuf_free(&b);
}

static void test_old_lines_are_dropped(void **state)
{
	ax_outbuf b;
	int i;
	char line[32];

	(void)state;
	ax_outbuf_init(&b);
	for (i = 0; i < AX_OUTBUF_MAX_LINES + 10; i++) {
		snprintf(line, sizeof line, "%d\n", i);
		feed(&b, line);
	}
	assert_true(b.n <= AX_OUTBUF_MAX_LINES);
	snprintf(line, sizeof line, "%d", AX_OUTBUF_MAX_LINES + 9);
	assert_string_equal(b.lines[b.n - 1], line);
	ax_outbuf_free(&b);
}

static void test_wrap_counts_cells(void **state)
{
	size_t starts[8];

	(void)state;
	assert_int_equal(ax_outbuf_wrap("", 10, starts, 8), 1);
	assert_int_equal(ax_outbuf_wrap("0123456789", 10, starts, 8), 1);
	assert_int_equal(ax_outbuf_wrap("0123456789a", 10, starts, 8), 2);
	assert_int_equal(starts[1], 10);
	/* é is 2 bytes and 1 cell; 世 is 3 bytes and 2 cells. */
	assert_int_equal(ax_outbuf_wrap("ééééé", 5, starts, 8), 1);
	assert_int_equal(ax_outbuf_wrap("世界世", 4, starts, 8), 2);
	assert_int_equal(starts[1], 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_across_chunks),
		cmocka_unit_test(test_carriage_return_and_escapes),
		cmocka_unit_test(test_hostile_escapes),
		cmocka_unit_test(test_shell_lines_close_open_output),
		cmocka_unit_test(test_old_lines_are_dropped),
		cmocka_unit_test(test_wrap_counts_cells),
	};

	setlocale(LC_ALL, "C.UTF-8");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
