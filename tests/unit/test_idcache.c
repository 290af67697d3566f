/* The completion id cache: list edits, staleness, the file and its printing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "lib/fs.h"
#include "lib/idcache.h"

static int setup(void **state)
{
	char tmpl[] = "/tmp/allox-idcache-XXXXXX";
	char *dir = mkdtemp(tmpl);

	if (!dir)
		return -1;
	*state = strdup(dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[256];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", (char *)*state);
	free(*state);
	return system(cmd) == 0 ? 0 : -1;
}

/* What ax_idcache_print writes, as a malloc'd string. */
static char *printed(const json_t *cache, ax_idkind kind, const char *prefix, size_t *n)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	assert_non_null(f);
	*n = ax_idcache_print(f, cache, kind, prefix);
	fclose(f);
	return buf;
}

static void test_sandbox_edits(void **state)
{
	json_t *c = ax_idcache_new("local");
	json_t *rows = json_pack("[{s:s, s:s}, {s:s, s:s}, {s:s}]", "id", "aaa-1", "state", "Running", "id", "bbb-2",
				 "state", "Paused", "state", "no id");
	size_t n;
	char *out;

	(void)state;
	ax_idcache_set_sandboxes(c, rows, 1000);
	out = printed(c, AX_ID_SANDBOX, NULL, &n);
	assert_int_equal(n, 2);
	assert_string_equal(out, "aaa-1\tRunning\nbbb-2\tPaused\n");
	free(out);

	ax_idcache_put_sandbox(c, "ccc-3", "Running");
	ax_idcache_put_sandbox(c, "bbb-2", "Running");
	ax_idcache_put_sandbox(c, "aaa-1", NULL);   /* keeps the known state */
	ax_idcache_remove_sandbox(c, "aaa-1");
	ax_idcache_remove_sandbox(c, "not-there");
	out = printed(c, AX_ID_SANDBOX, "b", &n);
	assert_int_equal(n, 1);
	assert_string_equal(out, "bbb-2\tRunning\n");
	free(out);
	out = printed(c, AX_ID_SANDBOX, NULL, &n);
	assert_string_equal(out, "bbb-2\tRunning\nccc-3\tRunning\n");
	free(out);
	json_decref(rows);
	json_decref(c);
}

static void test_checkpoint_edits(void **state)
{
	json_t *c = ax_idcache_new("local");
	json_t *all = json_pack("[{s:s, s:s, s:s}, {s:s, s:n, s:s}]", "id", "cp-1", "name", "v1", "sandbox_id", "s1",
				"id", "cp-2", "name", "sandbox_id", "s2");
	json_t *s1 = json_pack("[{s:s, s:s, s:s}]", "id", "cp-3", "name", "v3", "sandbox_id", "s1");
	json_t *none = json_array();
	size_t n;
	char *out;

	(void)state;
	ax_idcache_set_checkpoints(c, all, NULL, 50);
	assert_false(ax_idcache_stale(c, AX_ID_CHECKPOINT, 60, 15));
	out = printed(c, AX_ID_CHECKPOINT, NULL, &n);
	assert_string_equal(out, "cp-1\tv1\ncp-2\tcheckpoint\n");
	free(out);

	/* One sandbox's listing replaces only its own checkpoints and is not a full refresh. */
	ax_idcache_set_checkpoints(c, s1, "s1", 500);
	assert_true(ax_idcache_stale(c, AX_ID_CHECKPOINT, 500, 15));
	out = printed(c, AX_ID_CHECKPOINT, NULL, &n);
	assert_string_equal(out, "cp-2\tcheckpoint\ncp-3\tv3\n");
	free(out);
	ax_idcache_set_checkpoints(c, none, "s2", 500);
	ax_idcache_put_checkpoint(c, "cp-4", "line\tbreak\n", "s1");
	ax_idcache_put_checkpoint(c, "cp-3", "renamed", "s1");
	ax_idcache_remove_checkpoint(c, "cp-x");
	out = printed(c, AX_ID_CHECKPOINT, "cp-", &n);
	assert_string_equal(out, "cp-3\trenamed\ncp-4\tline break \n");
	free(out);
	json_decref(all);
	json_decref(s1);
	json_decref(none);
	json_decref(c);
}

static void test_stale(void **state)
{
	json_t *c = ax_idcache_new("local"), *rows = json_array();

	(void)state;
	assert_true(ax_idcache_stale(c, AX_ID_SANDBOX, 100, 15));
	ax_idcache_set_sandboxes(c, rows, 100);
	assert_false(ax_idcache_stale(c, AX_ID_SANDBOX, 100, 15));
	assert_false(ax_idcache_stale(c, AX_ID_SANDBOX, 115, 15));
	assert_true(ax_idcache_stale(c, AX_ID_SANDBOX, 116, 15));
	assert_true(ax_idcache_stale(c, AX_ID_SANDBOX, 99, 15));   /* clock went back */
	assert_true(ax_idcache_stale(c, AX_ID_CHECKPOINT, 100, 15));
	/* A single create does not make a list fresh. */
	ax_idcache_put_checkpoint(c, "cp-1", NULL, NULL);
	assert_true(ax_idcache_stale(c, AX_ID_CHECKPOINT, 100, 15));
	json_decref(rows);
	json_decref(c);
}

static void test_file_round_trip(void **state)
{
	const char *home = *state;
	json_t *c = ax_idcache_new("local"), *back;
	char *path = ax_path_join(home, "cache/ids.json");
	struct stat st;
	ax_error err;
	size_t n;
	char *out;

	ax_idcache_put_sandbox(c, "aaa-1", "Running");
	assert_int_equal(ax_idcache_save(home, c, &err), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	back = ax_idcache_load(home, "local");
	out = printed(back, AX_ID_SANDBOX, NULL, &n);
	assert_string_equal(out, "aaa-1\tRunning\n");
	free(out);
	json_decref(back);

	/* Another server's cache is not mixed in. */
	back = ax_idcache_load(home, "example.com:8080");
	assert_int_equal(json_array_size(json_object_get(back, "sandboxes")), 0);
	assert_string_equal(json_string_value(json_object_get(back, "domain")), "example.com:8080");
	json_decref(back);
	json_decref(c);
	free(path);
}

static void test_damaged_file(void **state)
{
	const char *home = *state;
	static const char *const bad[] = { "", "{", "[]", "{\"version\": 2, \"domain\": \"local\", \"sandboxes\": [], "
				      "\"checkpoints\": []}", "{\"version\": 1, \"domain\": \"local\", \"sandboxes\": {}}" };
	char *path = ax_path_join(home, "cache/ids.json");
	ax_error err;
	size_t i;

	assert_int_equal(ax_mkdir_parent(path, 0700, &err), 0);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		json_t *c;

		assert_int_equal(ax_write_file_replace(path, bad[i], strlen(bad[i]), 0600, &err), 0);
		c = ax_idcache_load(home, "local");
		assert_non_null(c);
		assert_true(json_is_array(json_object_get(c, "sandboxes")));
		assert_int_equal(json_array_size(json_object_get(c, "sandboxes")), 0);
		json_decref(c);
	}
	free(path);
}

/* The text of HOME/cache/NAME, or NULL when missing. */
static char *cache_text(const char *home, const char *name)
{
	char *dir = ax_path_join(home, "cache"), *path = ax_path_join(dir, name), *text = NULL;
	size_t len;
	ax_error err;

	if (ax_read_file(path, &text, &len, &err) < 0)
		text = NULL;
	free(path);
	free(dir);
	return text;
}

static void append_text(const char *home, const char *text)
{
	char *dir = ax_path_join(home, "cache"), *path = ax_path_join(dir, "ids.log");
	FILE *f = fopen(path, "a");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(path);
	free(dir);
}

static void test_journal(void **state)
{
	const char *home = *state;
	json_t *c = ax_idcache_new("local"), *back, *e;
	ax_error err;
	size_t n;
	char *out;

	ax_idcache_put_checkpoint(c, "ck-1", "v1", "sb-1");
	assert_int_equal(ax_idcache_save(home, c, &err), 0);
	/* Edits are appended; ids.json is left as it was. */
	e = json_pack("{s:s, s:s, s:s, s:n}", "op", "put_checkpoint", "id", "ck-2", "name", "v2", "sandbox_id");
	assert_int_equal(ax_idcache_append(home, "local", e, &err), 0);
	json_decref(e);
	e = json_pack("{s:s, s:s}", "op", "remove_checkpoint", "id", "ck-1");
	assert_int_equal(ax_idcache_append(home, "local", e, &err), 0);
	json_decref(e);
	/* Another server's edit, an unknown edit, a malformed line and a torn
	 * last line (no newline) change nothing. */
	e = json_pack("{s:s, s:s}", "op", "put_sandbox", "id", "elsewhere");
	assert_int_equal(ax_idcache_append(home, "example.com:8080", e, &err), 0);
	json_decref(e);
	append_text(home, "{\"op\": \"rename\", \"id\": \"ck-2\", \"domain\": \"local\"}\nnot json\n"
			  "{\"op\": \"put_sandbox\", \"id\": \"torn\", \"domain\": \"lo");
	out = cache_text(home, "ids.json");
	assert_non_null(strstr(out, "ck-1"));
	assert_null(strstr(out, "ck-2"));
	free(out);

	back = ax_idcache_load(home, "local");
	out = printed(back, AX_ID_CHECKPOINT, NULL, &n);
	assert_string_equal(out, "ck-2\tv2\n");
	free(out);
	out = printed(back, AX_ID_SANDBOX, NULL, &n);
	assert_string_equal(out, "");
	free(out);

	/* The other server sees its own edit only. */
	json_decref(c);
	c = ax_idcache_load(home, "example.com:8080");
	out = printed(c, AX_ID_SANDBOX, NULL, &n);
	assert_string_equal(out, "elsewhere\tsandbox\n");
	free(out);

	/* Saving folds the journal in: it is emptied, not removed. */
	assert_int_equal(ax_idcache_save(home, back, &err), 0);
	out = cache_text(home, "ids.log");
	assert_non_null(out);
	assert_string_equal(out, "");
	free(out);
	json_decref(back);
	back = ax_idcache_load(home, "local");
	out = printed(back, AX_ID_CHECKPOINT, NULL, &n);
	assert_string_equal(out, "ck-2\tv2\n");
	free(out);
	json_decref(back);
	json_decref(c);
}

static void test_journal_compacts(void **state)
{
	const char *home = *state;
	ax_error err;
	size_t n, i;
	json_t *c;
	char *out, id[32];
	struct stat st;
	char *dir = ax_path_join(home, "cache"), *log = ax_path_join(dir, "ids.log");

	/* ~110 bytes a line: past AX_IDCACHE_JOURNAL_MAX within 1000 appends. */
	for (i = 0; i < 1000; i++) {
		json_t *e;

		snprintf(id, sizeof id, "ck-%04zu", i);
		e = json_pack("{s:s, s:s, s:s, s:s}", "op", "put_checkpoint", "id", id, "name", "a-checkpoint-name",
			      "sandbox_id", "0123456789abcdef0123456789abcdef");
		assert_int_equal(ax_idcache_append(home, "local", e, &err), 0);
		json_decref(e);
		assert_int_equal(stat(log, &st), 0);
		assert_true(st.st_size <= AX_IDCACHE_JOURNAL_MAX + 256);
	}
	c = ax_idcache_load(home, "local");
	out = printed(c, AX_ID_CHECKPOINT, "ck-09", &n);
	assert_int_equal(n, 100);
	free(out);
	assert_int_equal(json_array_size(json_object_get(c, "checkpoints")), 1000);
	out = cache_text(home, "ids.json");
	assert_non_null(strstr(out, "ck-0500"));
	free(out);
	json_decref(c);
	free(log);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sandbox_edits),
		cmocka_unit_test(test_checkpoint_edits),
		cmocka_unit_test(test_stale),
		cmocka_unit_test_setup_teardown(test_file_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_compacts, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
