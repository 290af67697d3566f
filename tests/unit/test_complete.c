/* Whole-line completion from the command table (no engine: ids come from a cache file). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "lib/fs.h"
#include "cli/hidden.h"
#include "cmd/groups.h"
#include "lib/idcache.h"

#define SANDBOX "0b7b7c9e-1111-2222-3333-444455556666"

static const ax_group_spec *const groups[] = {
	&ax_group_sandbox, &ax_group_session, &ax_group_aio, &ax_group_run, &ax_group_file,
	&ax_group_checkpoint, &ax_group_config, NULL,
};
static const ax_registry registry = { .groups = groups };

static int setup(void **state)
{
	char tmpl[] = "/tmp/allox-complete-XXXXXX";
	char *dir = mkdtemp(tmpl), *p;
	json_t *cache, *rows;
	ax_error err;

	if (!dir)
		return -1;
	*state = strdup(dir);
	/* A fresh cache, so nothing asks a server. */
	cache = ax_idcache_new("local");
	rows = json_pack("[{s:s, s:s}]", "id", SANDBOX, "state", "Running");
	ax_idcache_set_sandboxes(cache, rows, time(NULL));
	json_decref(rows);
	rows = json_pack("[{s:s, s:s, s:s}]", "id", "cp-1", "name", "v1", "sandbox_id", SANDBOX);
	ax_idcache_set_checkpoints(cache, rows, NULL, time(NULL));
	json_decref(rows);
	if (ax_idcache_save(dir, cache, &err) < 0)
		return -1;
	json_decref(cache);
	p = ax_path_join(dir, "dev.toml");
	if (ax_write_file_replace(p, "", 0, 0600, &err) < 0)
		return -1;
	free(p);
	return 0;
}

static int teardown(void **state)
{
	char cmd[256];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", (char *)*state);
	free(*state);
	return system(cmd) == 0 ? 0 : -1;
}

/* Complete the words of LINE (space-separated; a trailing space is an empty
 * current word) and return the candidates without descriptions, and the
 * directive, one per line. */
static char *complete(const char *home, const char *line)
{
	char copy[512], *words[32], *buf = NULL, *out, *o;
	const char *p;
	int n = 0;
	size_t size = 0;
	ax_globals g;
	FILE *f = open_memstream(&buf, &size);
	char *tok, *save = NULL;

	assert_non_null(f);
	memset(&g, 0, sizeof g);
	g.flags.use_server_proxy = -1;
	snprintf(copy, sizeof copy, "%s", line);
	for (tok = strtok_r(copy, " ", &save); tok && n < 31; tok = strtok_r(NULL, " ", &save))
		words[n++] = tok;
	if (line[strlen(line) - 1] == ' ')
		words[n++] = (char *)"";
	assert_int_equal(ax_complete_line(&registry, &g, home, n, words, f), 0);
	fclose(f);
	/* Keep only the candidates (drop "\tdescription"). */
	out = o = calloc(1, strlen(buf) + 1);
	for (p = buf; *p;) {
		size_t len = strcspn(p, "\t\n");

		memcpy(o, p, len);
		o += len;
		*o++ = '\n';
		p += strcspn(p, "\n");
		if (*p)
			p++;
	}
	free(buf);
	return out;
}

#define EXPECT(home, line, want)                        \
	do {                                            \
		char *got_ = complete(home, line);      \
		assert_string_equal(got_, want);        \
		free(got_);                             \
	} while (0)

static void test_groups_and_verbs(void **state)
{
	const char *home = *state;

	EXPECT(home, "co", "config\n:none\n");
	EXPECT(home, "checkpoint re", "restore\n:none\n");
	EXPECT(home, "aio j", "jupyter\n:none\n");
	EXPECT(home, "aio jupyter ", "run\n:none\n");
	EXPECT(home, "nosuchgroup ", ":none\n");
	EXPECT(home, "help sandbox cr", "create\n:none\n");
}

static void test_options(void **state)
{
	const char *home = *state;

	EXPECT(home, "sandbox create --ski", "--skip-health-check\n:none\n");
	EXPECT(home, "file download --c", "--chunk-size\n:none\n");
	/* Global options before the group; their values. */
	EXPECT(home, "--pro", "--profile\n--protocol\n:none\n");
	EXPECT(home, "--profile ", "dev\n:none\n");
	EXPECT(home, "--protocol h", "http\nhttps\n:none\n");
	EXPECT(home, "--profile dev sandbox l", "list\n:none\n");
	/* -o values are the verb's own formats. */
	EXPECT(home, "run -o ", "json\nraw\n:none\n");
	EXPECT(home, "sandbox list --output y", "yaml\n:none\n");
	/* After run's first positional everything is the remote command. */
	EXPECT(home, "run ls --", ":none\n");
}

static void test_values(void **state)
{
	const char *home = *state;

	EXPECT(home, "sandbox renew -t 3", "30s\n30m\n:none\n");
	EXPECT(home, "sandbox create --timeout n", "none\n:none\n");
	EXPECT(home, "aio jupyter run --save-images ", ":dirs\n");
	EXPECT(home, "aio jupyter run -f ", ":files\n");
	EXPECT(home, "config set defaults.a", "defaults.aio_port\ndefaults.aio_health_path\n:none\n");
	/* KEY=VALUE options given as two words: both are skipped. */
	EXPECT(home, "sandbox create -e A 1 --ima", "--image\n:none\n");
}

static void test_ids_and_paths(void **state)
{
	const char *home = *state;

	EXPECT(home, "sandbox get ", SANDBOX "\n:none\n");
	EXPECT(home, "sandbox get 0b7", SANDBOX "\n:none\n");
	EXPECT(home, "sandbox get x", ":none\n");
	EXPECT(home, "checkpoint restore ", "cp-1\nlatest\n:none\n");
	EXPECT(home, "checkpoint delete ", "cp-1\n:none\n");
	EXPECT(home, "run ", SANDBOX "\n:none\n");
	/* upload [SANDBOX_ID] LOCAL REMOTE: the first word may be either. */
	EXPECT(home, "file upload ", SANDBOX "\n:files\n");
	EXPECT(home, "file upload " SANDBOX " ", ":files\n");
	EXPECT(home, "file upload " SANDBOX " ./a ", ":none\n");
	EXPECT(home, "file upload ./a ", ":none\n");
	EXPECT(home, "file download /remote ", ":files\n");
	EXPECT(home, "file cat ", SANDBOX "\n:none\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_groups_and_verbs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_options, setup, teardown),
		cmocka_unit_test_setup_teardown(test_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ids_and_paths, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
