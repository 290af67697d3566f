/* Tab completion on the allox> line: the command table's completer plus the shell's words. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "ui/complete.h"
#include "cli/registry.h"
#include "cmd/groups.h"
#include "lib/idcache.h"

#define SANDBOX_1 "1b2c0000-0000-4000-8000-000000000001"
#define SANDBOX_2 "7f000000-0000-4000-8000-000000000002"
#define CHECKPOINT "c0ffee00-0000-4000-8000-000000000003"

/* allox-cli's groups, the shell's own among them. */
static const ax_group_spec *const groups[] = {
	&ax_group_sandbox, &ax_group_session, &ax_group_aio, &ax_group_run, &ax_group_file,
	&ax_group_checkpoint, &ax_group_config, &ax_group_shell, NULL,
};
static const ax_registry registry = { .groups = groups };

static ax_shell sh;
static ax_ctx ctx;
static ax_globals globals;
static char home[64];

/* A home whose id cache is fresh, so nothing asks a server. */
static int setup(void **state)
{
	json_t *cache, *rows;
	ax_error err;

	(void)state;
	snprintf(home, sizeof home, "/tmp/allox-tui-complete-XXXXXX");
	if (!mkdtemp(home))
		return -1;
	cache = ax_idcache_new("local");
	rows = json_pack("[{s:s, s:s}, {s:s, s:s}]", "id", SANDBOX_1, "state", "Running", "id", SANDBOX_2, "state",
			 "Paused");
	ax_idcache_set_sandboxes(cache, rows, time(NULL));
	json_decref(rows);
	rows = json_pack("[{s:s, s:s, s:s}]", "id", CHECKPOINT, "sandbox_id", SANDBOX_1, "name", "v1");
	ax_idcache_set_checkpoints(cache, rows, NULL, time(NULL));
	json_decref(rows);
	if (ax_idcache_save(home, cache, &err) < 0)
		return -1;
	json_decref(cache);
	memset(&sh, 0, sizeof sh);
	memset(&ctx, 0, sizeof ctx);
	memset(&globals, 0, sizeof globals);
	globals.flags.use_server_proxy = -1;
	ctx.home = home;
	ctx.globals = &globals;
	ctx.registry = &registry;
	sh.ctx = &ctx;
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", home);
	return system(cmd) == 0 ? 0 : -1;
}

/* The candidates for TEXT after BEFORE, space-separated ("" for none), with
 * " PATH" appended when local paths complete too ("PATH" alone: only paths). */
static char *cands(const char *before, const char *text)
{
	static char buf[2048];
	ax_completion c;
	size_t i, off = 0;

	buf[0] = '\0';
	assert_int_equal(ax_complete_shell(&sh, before, text, &c), 0);
	for (i = 0; i < c.n; i++)
		off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%s", i ? " " : "", c.words[i]);
	if (c.paths)
		snprintf(buf + off, sizeof buf - off, "%sPATH", off ? " " : "");
	assert_null(c.words[c.n]);
	ax_completion_free(&c);
	return buf;
}

static void test_first_word(void **state)
{
	(void)state;
	assert_string_equal(cands("", "sa"), "sandbox");
	assert_string_equal(cands("", "c"), "checkpoint config clear");
	assert_string_equal(cands("", "he"), "help");
	assert_string_equal(cands("", "sh"), "shell");
	assert_string_equal(cands("", "u"), "use");
	assert_string_equal(cands("", "zz"), "");
	/* Shell words take no arguments. */
	assert_string_equal(cands("history ", ""), "");
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
	assert_string_equal(cands("sandbox create --timeout ", "n"), "none");
	/* After the command of run, the words are the remote command's: nothing local. */
	assert_string_equal(cands("run ls ", "--"), "");
	assert_string_equal(cands("checkpoint restore --source-sandbox ", "7f"), SANDBOX_2);
}

static void test_ids(void **state)
{
	(void)state;
	assert_string_equal(cands("sandbox get ", "1b"), SANDBOX_1);
	assert_string_equal(cands("use ", ""), SANDBOX_1 " " SANDBOX_2);
	assert_string_equal(cands("use " SANDBOX_1 " ", ""), "");
	assert_string_equal(cands("checkpoint restore ", ""), CHECKPOINT " latest");
	/* checkpoint delete takes an id, never a name. */
	assert_string_equal(cands("checkpoint delete ", ""), CHECKPOINT);
	assert_string_equal(cands("checkpoint delete ", "v"), "");
}

static void test_paths(void **state)
{
	(void)state;
	assert_string_equal(cands("file upload ", "./"), "PATH");
	/* After an opening quote the quoted word is the one being completed. */
	assert_string_equal(cands("file upload \"", "./"), "PATH");
	assert_string_equal(cands("sandbox get '", "7f"), SANDBOX_2);
	/* The first word of upload is a sandbox id or a local path. */
	assert_string_equal(cands("file upload ", ""), SANDBOX_1 " " SANDBOX_2 " PATH");
	assert_string_equal(cands("aio jupyter run -f ", ""), "PATH");
	assert_string_equal(cands("aio jupyter run --save-images ", "pl"), "PATH");
	/* A path inside the sandbox is no local path. */
	assert_string_equal(cands("file cat " SANDBOX_1 " ", "/"), "");
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
