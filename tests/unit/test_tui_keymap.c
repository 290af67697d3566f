/* The shell's keymap and pane tables: the invariants the help overlay relies on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "ui/keymap.h"
#include "ui/tui.h"

static void test_every_binding_has_keys_and_help(void **state)
{
	size_t i;

	(void)state;
	assert_true(ax_keymap_len > 0);
	for (i = 0; i < ax_keymap_len; i++) {
		const ax_keybinding *b = &ax_keymap[i];

		assert_non_null(b->help);
		assert_true(strlen(b->help) > 0);
		assert_non_null(b->label);
		assert_true(strlen(b->label) > 0);
		assert_int_not_equal(b->keys[0], 0);
		assert_true(b->scope < AX_SCOPE_COUNT);
		assert_true(b->action < AX_ACT_COUNT);
	}
}

static void test_no_key_bound_twice_in_a_scope(void **state)
{
	size_t i, j, k, l;

	(void)state;
	for (i = 0; i < ax_keymap_len; i++)
		for (k = 0; k < AX_KEYMAP_MAX_KEYS && ax_keymap[i].keys[k]; k++) {
			/* Twice in one row counts too. */
			for (l = k + 1; l < AX_KEYMAP_MAX_KEYS; l++)
				assert_int_not_equal(ax_keymap[i].keys[k], ax_keymap[i].keys[l]);
			for (j = i + 1; j < ax_keymap_len; j++)
				if (ax_keymap[j].scope == ax_keymap[i].scope)
					for (l = 0; l < AX_KEYMAP_MAX_KEYS; l++)
						assert_int_not_equal(ax_keymap[i].keys[k], ax_keymap[j].keys[l]);
			assert_ptr_equal(ax_keymap_find(ax_keymap[i].scope, ax_keymap[i].keys[k]), &ax_keymap[i]);
		}
}

/* The overlay joins rows by help text, so rows sharing one must be adjacent. */
static void test_rows_sharing_help_are_adjacent(void **state)
{
	size_t i, j;

	(void)state;
	for (i = 0; i < ax_keymap_len; i++)
		for (j = i + 2; j < ax_keymap_len; j++)
			if (!strcmp(ax_keymap[i].help, ax_keymap[j].help))
				assert_string_equal(ax_keymap[j - 1].help, ax_keymap[i].help);
}

static void test_help_overlay_names_every_binding(void **state)
{
	char all[4096] = "", line[128];
	size_t i, n = 0;

	(void)state;
	while (ax_keymap_help_line(n, line, sizeof line)) {
		assert_true(strlen(all) + strlen(line) + 2 < sizeof all);
		strcat(all, line);
		strcat(all, "\n");
		n++;
	}
	for (i = 0; i < ax_keymap_len; i++) {
		assert_non_null(strstr(all, ax_keymap[i].help));
		assert_non_null(strstr(all, ax_keymap[i].label));
	}
	assert_non_null(strstr(all, "Any key closes this."));
	/* The overlay is drawn only when it fits 80x24 with its border. */
	assert_true(n + 2 <= 22);
	for (i = 0; i < n; i++) {
		ax_keymap_help_line(i, line, sizeof line);
		assert_true(strlen(line) <= 72 - 4);
	}
}

static void test_every_pane_has_ops(void **state)
{
	int f;

	(void)state;
	assert_null(ax_pane_ops_of(AX_FOCUS_CMDLINE));
	assert_null(ax_pane_ops_of(AX_FOCUS_COUNT));
	for (f = 0; f < AX_FOCUS_COUNT; f++) {
		const ax_pane_ops *p = ax_pane_ops_of(f);

		if (f == AX_FOCUS_CMDLINE)
			continue;
		assert_non_null(p);
		assert_int_equal(p->focus, f);
		assert_non_null(p->name);
		assert_non_null(p->draw);
		assert_non_null(p->step);
	}
}

/* Pane actions need a pane; the rest apply anywhere their scope does. */
static void test_pane_actions_only_on_panes(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ax_keymap_len; i++)
		if (ax_keymap[i].action == AX_ACT_MOVE || ax_keymap[i].action == AX_ACT_ENTER)
			assert_int_equal(ax_keymap[i].scope, AX_SCOPE_PANES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_binding_has_keys_and_help),
		cmocka_unit_test(test_no_key_bound_twice_in_a_scope),
		cmocka_unit_test(test_rows_sharing_help_are_adjacent),
		cmocka_unit_test(test_help_overlay_names_every_binding),
		cmocka_unit_test(test_every_pane_has_ops),
		cmocka_unit_test(test_pane_actions_only_on_panes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
