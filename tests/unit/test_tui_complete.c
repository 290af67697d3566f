#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/tui/complete.h"

static ax_shell sh;
static ax_ctx ctx;

static int setup(void **state)
{
	(void)state;
	memset(&sh, 0, sizeof sh);
	memset(&ctx, 0, sizeof ctx);
	ctx.home = "/nonexistent";
	sh.ctx = &ctx;
	ax_catalog_init(&sh.catalog);
	json_decref(sh.catalog.sandboxes);
	json_decref(sh.catalog.checkpoints);
	sh.catalog.sandboxes = json_pack("[{s:s, s:s}, {s:s, s:s}]", "id", "1b2c0000-0000-4000-8000-000000000001",
					 "state", "Running", "id", "7f000000-0000-4000-8000-000000000002", "state",
					 "Paused");
	sh.catalog.checkpoints = json_pack("[{s:s, s:s, s:s}]", "id", "c0ffee00-0000-4000-8000-000000000003",
					   "sandbox_id", "1b2c0000-0000-4000-8000-000000000001", "name", "v1");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ax_catalog_free(&sh.catalog);
	return 0;
}

/* The candidates for TEXT after BEFORE, as one space-separated string ("" for
 * none, "PATH" for local path completion). */
static char *cands(const char *before, const char *text)
{
	static char buf[2048];
	char **v = ax_complete_candidates(&sh, before, text);
	size_t i, off = 0;

	if (!v)
		return strcpy(buf, "PATH");
	buf[0] = '\0';
	for (i = 0; v[i]; i++) {
		off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%s", i ? " " : "", v[i]);
		free(v[i]);
	}
	free(v);
	return buf;
}

static void test_first_word(void **state)
{
	(void)state;
	assert_string_equal(cands("", "sa"), "sandbox");
	assert_string_equal(cands("", "c"), "checkpoint config clear");
	assert_string_equal(cands("", "he"), "help");
	assert_string_equal(cands("", "sh"), "shell");
	assert_string_equal(cands("", "zz"), "");
}

static void test_verbs(void **state)
{
	(void)state;
	assert_string_equal(cands("sandbox ", "ki"), "kill");
	assert_string_equal(cands("sandbox ", "p"), "pause");
	assert_string_equal(cands("aio ", "j"), "jupyter");
	assert_string_equal(cands("aio jupyter ", ""), "run");
	assert_string_equal(cands("help ", "check"), "checkpoint");
	assert_string_equal(cands("help checkpoint ", "re"), "restore");
}

static void test_options_and_values(void **state)
{
	(void)state;
	assert_string_equal(cands("checkpoint create ", "--n"), "--name");
	assert_string_equal(cands("checkpoint list ", "--"), "--all --output --help");
	assert_string_equal(cands("checkpoint list -o ", ""), "table json yaml");
	assert_string_equal(cands("checkpoint list --output ", "y"), "yaml");
	assert_string_equal(cands("run -o ", ""), "json raw");
	/* After the command of run, options belong to the command. */
	assert_string_equal(cands("run ls ", "--"), "PATH");
	assert_string_equal(cands("checkpoint restore --source-sandbox ", "7f"),
			    "7f000000-0000-4000-8000-000000000002");
}

static void test_ids(void **state)
{
	(void)state;
	assert_string_equal(cands("sandbox get ", "1b"), "1b2c0000-0000-4000-8000-000000000001");
	assert_string_equal(cands("use ", ""),
			    "1b2c0000-0000-4000-8000-000000000001 7f000000-0000-4000-8000-000000000002");
	assert_string_equal(cands("checkpoint restore ", ""), "c0ffee00-0000-4000-8000-000000000003 v1 latest");
	assert_string_equal(cands("checkpoint delete ", "v"), "v1");
}

static void test_paths(void **state)
{
	(void)state;
	/* Nothing in the catalog matches: a local path. */
	assert_string_equal(cands("file upload ", "./"), "PATH");
	assert_string_equal(cands("aio jupyter run -f ", ""), "PATH");
	assert_string_equal(cands("aio jupyter run --save-images ", "pl"), "PATH");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_word),
		cmocka_unit_test(test_verbs),
		cmocka_unit_test(test_options_and_values),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_paths),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
