#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/fs.h"
#include "lib/session.h"

static int setup(void **state)
{
	char tmpl[] = "/tmp/allox-session-XXXXXX";
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

static char *read_text(const char *home, const char *name)
{
	char *path = ax_path_join(home, name), *data = NULL;
	size_t len;
	ax_error err;
	int rc = ax_read_file(path, &data, &len, &err);

	free(path);
	return rc == 0 ? data : NULL;
}

static void write_text(const char *home, const char *name, const char *text)
{
	char *path = ax_path_join(home, name);
	ax_error err;

	assert_int_equal(ax_write_file_atomic(path, text, strlen(text), 0600, &err), 0);
	free(path);
}

static void test_round_trip(void **state)
{
	const char *home = *state;
	ax_session s, got;
	ax_error err;
	bool found;
	char *text, expect[512];

	assert_int_equal(ax_session_get(home, &got, &found, &err), 0);
	assert_false(found);
	assert_int_equal(ax_session_set(home, "abc", "http://127.0.0.1:1", &s, &err), 0);
	assert_int_equal(ax_session_get(home, &got, &found, &err), 0);
	assert_true(found);
	assert_string_equal(got.sandbox_id, "abc");
	assert_string_equal(got.aio_url, "http://127.0.0.1:1");
	assert_int_equal(strlen(got.created_at), 25);
	assert_string_equal(got.created_at + 19, "+00:00");
	text = read_text(home, "sessions.json");
	snprintf(expect, sizeof expect,
		 "{\n  \"current\": {\n    \"sandbox_id\": \"abc\",\n    \"aio_url\": \"http://127.0.0.1:1\",\n"
		 "    \"created_at\": \"%s\"\n  }\n}\n", s.created_at);
	assert_string_equal(text, expect);
	free(text);
	ax_session_free(&s);
	ax_session_free(&got);
}

static void test_clear(void **state)
{
	const char *home = *state;
	ax_error err;
	bool cleared;
	char *path;

	assert_int_equal(ax_session_set(home, "abc", "", NULL, &err), 0);
	assert_int_equal(ax_session_clear(home, "other", &cleared, &err), 0);
	assert_false(cleared);
	assert_int_equal(ax_session_clear(home, "abc", &cleared, &err), 0);
	assert_true(cleared);
	path = ax_path_join(home, "sessions.json");
	assert_int_equal(access(path, F_OK), -1);
	free(path);
	assert_int_equal(ax_session_clear(home, NULL, &cleared, &err), 0);
	assert_false(cleared);
}

static void test_other_keys_survive(void **state)
{
	const char *home = *state;
	ax_error err;
	bool cleared;
	char *text;

	write_text(home, "sessions.json", "{\"history\": [1, 2]}\n");
	assert_int_equal(ax_session_set(home, "x", "", NULL, &err), 0);
	assert_int_equal(ax_session_clear(home, NULL, &cleared, &err), 0);
	assert_true(cleared);
	text = read_text(home, "sessions.json");
	assert_non_null(text);
	assert_string_equal(text, "{\n  \"history\": [\n    1,\n    2\n  ]\n}\n");
	free(text);
}

static void test_damaged_file(void **state)
{
	static const char *const bad[] = {
		"not json", "[1,2]", "{\"current\": 5}", "{\"current\": {\"sandbox_id\": \"a\"}}", "",
	};
	const char *home = *state;
	ax_session s;
	ax_error err;
	bool found;
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		write_text(home, "sessions.json", bad[i]);
		assert_int_equal(ax_session_get(home, &s, &found, &err), 0);
		assert_false(found);
	}
	/* A write repairs it. */
	assert_int_equal(ax_session_set(home, "fixed", "", NULL, &err), 0);
	assert_int_equal(ax_session_get(home, &s, &found, &err), 0);
	assert_true(found);
	assert_string_equal(s.sandbox_id, "fixed");
	ax_session_free(&s);
}

/* 20 processes write at once: the file stays valid JSON and holds one of their values. */
static void test_concurrent_writers(void **state)
{
	const char *home = *state;
	pid_t pids[20];
	ax_session s;
	ax_error err;
	bool found;
	int i, status;

	for (i = 0; i < 20; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			char id[32];
			int j;

			for (j = 0; j < 20; j++) {
				snprintf(id, sizeof id, "sbx-%d-%d", i, j);
				if (ax_session_set(home, id, "", NULL, &err) < 0)
					_exit(1);
			}
			_exit(0);
		}
	}
	for (i = 0; i < 20; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	assert_int_equal(ax_session_get(home, &s, &found, &err), 0);
	assert_true(found);
	assert_int_equal(strncmp(s.sandbox_id, "sbx-", 4), 0);
	assert_string_equal(s.sandbox_id + strlen(s.sandbox_id) - 3, "-19");
	ax_session_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clear, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_keys_survive, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_writers, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
