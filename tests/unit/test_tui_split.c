#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ui/split.h"

/* Split LINE and compare with the NULL-terminated EXPECTED words. */
static void expect_words(const char *line, const char *const *expected)
{
	ax_words w;
	ax_error err;
	int i;

	assert_int_equal(ax_split_line(line, false, &w, &err), 0);
	for (i = 0; expected[i]; i++) {
		assert_true(i < w.n);
		assert_string_equal(w.v[i], expected[i]);
	}
	assert_int_equal(w.n, i);
	assert_null(w.v[w.n]);
	ax_words_free(&w);
}

static void test_blanks_separate_words(void **state)
{
	(void)state;
	expect_words("sandbox  list\t-o json ", (const char *const[]){ "sandbox", "list", "-o", "json", NULL });
	expect_words("", (const char *const[]){ NULL });
	expect_words("   \t ", (const char *const[]){ NULL });
}

static void test_quotes(void **state)
{
	(void)state;
	expect_words("aio exec -- sh -c 'echo a; sleep 3; echo b'",
		     (const char *const[]){ "aio", "exec", "--", "sh", "-c", "echo a; sleep 3; echo b", NULL });
	expect_words("a\"b c\"d 'e\"f' \"g'h\"", (const char *const[]){ "ab cd", "e\"f", "g'h", NULL });
	/* Empty quotes are an empty word. */
	expect_words("x '' \"\"", (const char *const[]){ "x", "", "", NULL });
	/* No expansion of any kind. */
	expect_words("echo $HOME * ~ $(id) `id`", (const char *const[]){ "echo", "$HOME", "*", "~", "$(id)", "`id`", NULL });
}

static void test_backslashes(void **state)
{
	(void)state;
	expect_words("a\\ b c\\'d \\\\", (const char *const[]){ "a b", "c'd", "\\", NULL });
	/* Inside double quotes only $ ` " \ are escaped; others keep the backslash. */
	expect_words("\"\\$x \\\" \\n \\\\\"", (const char *const[]){ "$x \" \\n \\", NULL });
	/* Inside single quotes a backslash is literal. */
	expect_words("'a\\b'", (const char *const[]){ "a\\b", NULL });
	/* Backslash-newline joins lines. */
	expect_words("ab\\\ncd", (const char *const[]){ "abcd", NULL });
}

static void test_comments(void **state)
{
	(void)state;
	expect_words("sandbox list # all of them", (const char *const[]){ "sandbox", "list", NULL });
	expect_words("# nothing", (const char *const[]){ NULL });
	expect_words("a#b '#c'", (const char *const[]){ "a#b", "#c", NULL });
}

static void test_errors(void **state)
{
	ax_words w;
	ax_error err;

	(void)state;
	assert_int_equal(ax_split_line("echo 'abc", false, &w, &err), -1);
	assert_int_equal(err.exit_code, 2);
	assert_non_null(strstr(err.message, "unterminated single quote"));
	assert_int_equal(ax_split_line("echo \"abc", false, &w, &err), -1);
	assert_non_null(strstr(err.message, "unterminated double quote"));
	assert_int_equal(ax_split_line("echo abc\\", false, &w, &err), -1);
	assert_non_null(strstr(err.message, "backslash"));
}

/* Completion splits the line being typed: open quotes are fine. */
static void test_partial(void **state)
{
	ax_words w;
	ax_error err;

	(void)state;
	assert_int_equal(ax_split_line("file cat 'my fi", true, &w, &err), 0);
	assert_int_equal(w.n, 3);
	assert_string_equal(w.v[2], "my fi");
	assert_int_equal(w.open_quote, '\'');
	assert_false(w.ends_in_blank);
	ax_words_free(&w);
	assert_int_equal(ax_split_line("sandbox ", true, &w, &err), 0);
	assert_int_equal(w.n, 1);
	assert_true(w.ends_in_blank);
	assert_int_equal(w.open_quote, 0);
	ax_words_free(&w);
	assert_int_equal(ax_split_line("sandbox", true, &w, &err), 0);
	assert_false(w.ends_in_blank);
	ax_words_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blanks_separate_words),
		cmocka_unit_test(test_quotes),
		cmocka_unit_test(test_backslashes),
		cmocka_unit_test(test_comments),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_partial),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
