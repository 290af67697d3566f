#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ui/layout.h"

static void assert_rect(ax_rect r, int y, int x, int h, int w)
{
	assert_int_equal(r.y, y);
	assert_int_equal(r.x, x);
	assert_int_equal(r.h, h);
	assert_int_equal(r.w, w);
}

static void test_minimum_80x24(void **state)
{
	ax_layout l;

	(void)state;
	ax_layout_compute(24, 80, &l);
	assert_false(l.below_minimum);
	assert_false(l.unusable);
	assert_rect(l.sessions, 0, 0, 7, 40);
	assert_rect(l.checkpoints, 0, 41, 7, 39);
	assert_rect(l.output, 7, 0, 15, 80);
	assert_rect(l.status, 22, 0, 1, 80);
	assert_rect(l.cmdline, 23, 0, 1, 80);
	/* A UUID (36), the current marker and the state icon fit a session row. */
	assert_true(l.sessions.w >= 36 + 4);
}

/* Every cell belongs to exactly one pane (or the separator column). */
static void test_panes_tile_the_screen(void **state)
{
	static const int sizes[][2] = { { 24, 80 }, { 25, 81 }, { 60, 200 }, { 100, 300 }, { 30, 120 } };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		int rows = sizes[i][0], cols = sizes[i][1], y, x;
		ax_layout l;

		ax_layout_compute(rows, cols, &l);
		for (y = 0; y < rows; y++)
			for (x = 0; x < cols; x++) {
				const ax_rect *r[] = { &l.sessions, &l.checkpoints, &l.output, &l.status, &l.cmdline };
				int hits = 0;
				size_t k;

				for (k = 0; k < 5; k++)
					hits += y >= r[k]->y && y < r[k]->y + r[k]->h && x >= r[k]->x &&
						x < r[k]->x + r[k]->w;
				if (y < l.sessions.h && x == l.sessions.w)
					assert_int_equal(hits, 0); /* the separator */
				else
					assert_int_equal(hits, 1);
			}
	}
}

static void test_top_panes_are_bounded(void **state)
{
	ax_layout l;

	(void)state;
	ax_layout_compute(100, 200, &l);
	assert_int_equal(l.sessions.h, 16);
	assert_int_equal(l.output.h, 100 - 2 - 16);
	ax_layout_compute(12, 60, &l);
	assert_true(l.below_minimum);
	assert_false(l.unusable);
	assert_int_equal(l.sessions.h, 6);
	assert_int_equal(l.output.h, 4);
}

static void test_tiny_terminal(void **state)
{
	ax_layout l;

	(void)state;
	ax_layout_compute(8, 30, &l);
	assert_true(l.unusable);
	assert_rect(l.cmdline, 7, 0, 1, 30);
	assert_rect(l.output, 0, 0, 7, 30);
	assert_int_equal(l.sessions.h, 0);
	ax_layout_compute(0, 0, &l);
	assert_int_equal(l.cmdline.h, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minimum_80x24),
		cmocka_unit_test(test_panes_tile_the_screen),
		cmocka_unit_test(test_top_panes_are_bounded),
		cmocka_unit_test(test_tiny_terminal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
