#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cli/parse.h"
#include "cli/registry.h"
#include "cmd/groups.h"
#include "lib/suggest.h"

/* Every group src/cmd defines, as allox-cli offers them. */
static const ax_group_spec *const groups[] = {
	&ax_group_sandbox, &ax_group_session, &ax_group_aio, &ax_group_run, &ax_group_file,
	&ax_group_checkpoint, &ax_group_config, NULL,
};
static const ax_registry registry = { .groups = groups };

static const char *const colors[] = { "red", "blue", NULL };

static const ax_option_spec opts[] = {
	{ .name = "env", .short_name = 'e', .kind = AX_VAL_KV, .repeatable = true, .help = "env" },
	{ .name = "timeout", .short_name = 't', .kind = AX_VAL_DURATION, .metavar = "DURATION", .help = "t" },
	{ .name = "count", .kind = AX_VAL_INT, .metavar = "N", .help = "n" },
	{ .name = "color", .kind = AX_VAL_CHOICE, .metavar = "C", .choices = colors, .help = "c" },
	{ .name = "force", .short_name = 'f', .kind = AX_VAL_NONE, .help = "f" },
	{ .name = NULL },
};

static const ax_positional_spec file_pos[] = {
	{ .name = "SANDBOX_ID", .arity = AX_POS_OPTIONAL, .kind = AX_VAL_SANDBOX_ID, .help = "id" },
	{ .name = "PATH", .arity = AX_POS_REQUIRED, .kind = AX_VAL_REMOTE_PATH, .help = "path" },
	{ .name = NULL },
};

static const ax_positional_spec run_pos[] = {
	{ .name = "COMMAND", .arity = AX_POS_VARIADIC, .kind = AX_VAL_COMMAND, .help = "cmd" },
	{ .name = NULL },
};

static const ax_option_spec typed_opts[] = {
	{ .name = "wait", .short_name = 'w', .kind = AX_VAL_DURATION, .metavar = "DURATION", .defval = "30", .min = "1s",
	  .max = "5m", .help = "w" },
	{ .name = "quality", .kind = AX_VAL_INT, .metavar = "N", .min = "0", .max = "100", .help = "q" },
	{ .name = "count", .kind = AX_VAL_INT, .metavar = "N", .defval = "3", .min = "1", .help = "n" },
	{ .name = "file", .short_name = 'f', .kind = AX_VAL_LOCAL_PATH, .metavar = "FILE", .required = true, .help = "f" },
	{ .name = "mode", .kind = AX_VAL_MODE, .metavar = "MODE", .defval = "644", .help = "m" },
	{ .name = "args", .kind = AX_VAL_JSON_OBJECT, .metavar = "JSON", .help = "a" },
	{ .name = "cpu", .kind = AX_VAL_CPU, .metavar = "CPUS", .help = "c" },
	{ .name = "pids", .kind = AX_VAL_PIDS, .metavar = "N", .help = "p" },
	{ .name = "encoding", .kind = AX_VAL_ENCODING, .metavar = "ENCODING", .defval = "utf-8", .help = "e" },
	{ .name = NULL },
};

static const ax_command_spec typed_cmd = {
	.group = "typed", .name = "", .summary = "s", .options = typed_opts, .formats = AX_FMT_TABLE | AX_FMT_JSON,
	.default_format = AX_FMT_TABLE,
};

static const ax_command_spec file_cmd = {
	.group = "file", .name = "cat", .summary = "s", .positionals = file_pos, .options = opts,
	.formats = AX_FMT_RAW | AX_FMT_JSON, .default_format = AX_FMT_RAW,
};
static const ax_command_spec run_cmd = {
	.group = "run", .name = "", .summary = "s", .positionals = run_pos, .options = opts,
	.formats = AX_FMT_RAW | AX_FMT_JSON, .default_format = AX_FMT_RAW, .flags = AX_CMD_OPTIONS_FIRST,
};

static int parse(const ax_command_spec *c, ax_args *a, ax_error *err, int argc, ...)
{
	char *argv[32];
	va_list ap;
	int i;

	va_start(ap, argc);
	for (i = 0; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	return ax_args_parse(c, argc, argv, a, err);
}

static void test_count_based_positionals(void **state)
{
	ax_args a;
	ax_error err;

	(void)state;
	assert_int_equal(parse(&file_cmd, &a, &err, 1, "/etc/hosts"), 0);
	assert_null(ax_arg_string(&a, "SANDBOX_ID"));
	assert_string_equal(ax_arg_string(&a, "PATH"), "/etc/hosts");
	ax_args_free(&a);
	assert_int_equal(parse(&file_cmd, &a, &err, 4, "id1", "-o", "json", "/p"), 0);
	assert_string_equal(ax_arg_string(&a, "SANDBOX_ID"), "id1");
	assert_string_equal(ax_arg_string(&a, "PATH"), "/p");
	assert_int_equal(a.format, AX_FMT_JSON);
	ax_args_free(&a);
	assert_int_equal(parse(&file_cmd, &a, &err, 0), -1);
	assert_string_equal(err.message, "missing argument PATH");
	assert_int_equal(parse(&file_cmd, &a, &err, 3, "a", "b", "c"), -1);
	assert_string_equal(err.message, "unexpected argument 'c'");
	assert_int_equal(err.exit_code, AX_EXIT_USAGE);
}

static void test_kv_both_forms(void **state)
{
	ax_args a;
	ax_error err;
	const json_t *env;

	(void)state;
	assert_int_equal(parse(&file_cmd, &a, &err, 6, "--env", "A=1", "-e", "B", "--no-sandbox", "/p"), 0);
	env = ax_arg_json(&a, "env");
	assert_int_equal(json_array_size(env), 2);
	assert_string_equal(json_string_value(json_array_get(json_array_get(env, 0), 1)), "1");
	assert_string_equal(json_string_value(json_array_get(json_array_get(env, 1), 0)), "B");
	assert_string_equal(json_string_value(json_array_get(json_array_get(env, 1), 1)), "--no-sandbox");
	ax_args_free(&a);
	assert_int_equal(parse(&file_cmd, &a, &err, 2, "--env=X=a=b", "/p"), 0);
	assert_string_equal(json_string_value(json_array_get(json_array_get(ax_arg_json(&a, "env"), 0), 1)), "a=b");
	ax_args_free(&a);
}

static void test_value_checks(void **state)
{
	ax_args a;
	ax_error err;

	(void)state;
	assert_int_equal(parse(&file_cmd, &a, &err, 3, "--timeout", "1x", "/p"), -1);
	assert_int_equal(err.exit_code, AX_EXIT_USAGE);
	assert_non_null(strstr(err.message, "Invalid duration '1x'"));
	assert_int_equal(parse(&file_cmd, &a, &err, 3, "--count", "ten", "/p"), -1);
	assert_string_equal(err.message, "invalid value 'ten' for --count: expected an integer");
	assert_int_equal(parse(&file_cmd, &a, &err, 3, "--color", "green", "/p"), -1);
	assert_string_equal(err.message, "invalid value 'green' for --color: choose from red, blue");
	assert_int_equal(parse(&file_cmd, &a, &err, 3, "-o", "yaml", "/p"), -1);
	assert_string_equal(err.message, "invalid value 'yaml' for -o/--output: choose from json, raw");
	assert_int_equal(parse(&file_cmd, &a, &err, 2, "/p", "--timeout"), -1);
	assert_string_equal(err.message, "option --timeout requires a value (DURATION)");
	assert_int_equal(parse(&file_cmd, &a, &err, 2, "--force=yes", "/p"), -1);
	assert_string_equal(err.message, "option --force takes no value");
	assert_int_equal(parse(&file_cmd, &a, &err, 3, "-t30s", "-f", "/p"), 0);
	assert_string_equal(ax_arg_string(&a, "timeout"), "30s");
	assert_true(ax_arg_flag(&a, "force"));
	ax_args_free(&a);
}

static void test_kinds_bounds_required(void **state)
{
	static const struct {
		const char *option, *value, *message;
	} refused[] = {
		{ "--wait", "0", "--wait must be from 1s to 5m" },
		{ "--wait", "301", "--wait must be from 1s to 5m" },
		{ "--count", "0", "--count must be at least 1" },
		{ "--quality", "101", "--quality must be from 0 to 100" },
		{ "--mode", "8", "Invalid value for '--mode': must be an octal permission such as 644, 0755, or 0o600" },
		{ "--args", "[1]", "--args must be a JSON object" },
		{ "--cpu", "0", "invalid value '0' for --cpu: must be from 10m to 4096 CPUs" },
		{ "--pids", "8", "invalid value '8' for --pids: must be from 16 to 4194304" },
		{ "--encoding", "latin1", "Invalid value for '--encoding': unsupported encoding 'latin1' (only utf-8)" },
	};
	ax_args a;
	ax_error err;

	(void)state;
	assert_int_equal(parse(&typed_cmd, &a, &err, 0), -1);
	assert_string_equal(err.message, "missing option --file FILE");
	assert_int_equal(parse(&typed_cmd, &a, &err, 2, "-f", ""), -1);
	assert_string_equal(err.message, "missing option --file FILE");
	assert_int_equal(err.exit_code, AX_EXIT_USAGE);
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		if (parse(&typed_cmd, &a, &err, 4, "-f", "x", refused[i].option, refused[i].value) != -1)
			fail_msg("%s %s was taken", refused[i].option, refused[i].value);
		assert_string_equal(err.message, refused[i].message);
		assert_int_equal(err.exit_code, AX_EXIT_USAGE);
	}
	/* The first error is reported; an -o json after it still chooses the format. */
	assert_int_equal(parse(&typed_cmd, &a, &err, 6, "--count", "0", "--bogus", "-f", "x", "-ojson"), -1);
	assert_string_equal(err.message, "--count must be at least 1");
	assert_int_equal(a.format, AX_FMT_JSON);
	/* -h needs nothing else. */
	assert_int_equal(parse(&typed_cmd, &a, &err, 1, "-h"), 0);
	assert_true(a.help);
	ax_args_free(&a);
}

static void test_typed_defaults(void **state)
{
	ax_args a;
	ax_error err;

	(void)state;
	assert_int_equal(parse(&typed_cmd, &a, &err, 2, "-f", "x"), 0);
	assert_string_equal(ax_arg_string(&a, "wait"), "30");
	assert_true(json_is_integer(ax_arg_json(&a, "count")));
	assert_int_equal(json_integer_value(ax_arg_json(&a, "count")), 3);
	assert_false(ax_arg_given(&a, "count"));
	assert_true(ax_arg_given(&a, "file"));
	assert_null(ax_arg_json(&a, "quality"));
	ax_args_free(&a);
	assert_int_equal(parse(&typed_cmd, &a, &err, 4, "-f", "x", "--count", "5"), 0);
	assert_int_equal(json_integer_value(ax_arg_json(&a, "count")), 5);
	assert_true(ax_arg_given(&a, "count"));
	ax_args_free(&a);
}

static void test_unknown_option_suggests(void **state)
{
	ax_args a;
	ax_error err;

	(void)state;
	assert_int_equal(parse(&file_cmd, &a, &err, 2, "--forse", "/p"), -1);
	assert_string_equal(err.message, "unknown option '--forse' (did you mean '--force'?)");
	assert_int_equal(parse(&file_cmd, &a, &err, 2, "--zzzzzz=1", "/p"), -1);
	assert_string_equal(err.message, "unknown option '--zzzzzz'");
	assert_int_equal(parse(&file_cmd, &a, &err, 2, "-q", "/p"), -1);
	assert_string_equal(err.message, "unknown option '-q'");
}

static void test_options_first_and_double_dash(void **state)
{
	ax_args a;
	ax_error err;
	const json_t *cmd;

	(void)state;
	assert_int_equal(parse(&run_cmd, &a, &err, 5, "-o", "json", "echo", "-o", "json"), 0);
	cmd = ax_arg_json(&a, "COMMAND");
	assert_int_equal(json_array_size(cmd), 3);
	assert_string_equal(json_string_value(json_array_get(cmd, 1)), "-o");
	assert_int_equal(a.format, AX_FMT_JSON);
	ax_args_free(&a);
	assert_int_equal(parse(&run_cmd, &a, &err, 3, "--", "-f", "x"), 0);
	assert_int_equal(json_array_size(ax_arg_json(&a, "COMMAND")), 2);
	assert_false(ax_arg_flag(&a, "force"));
	ax_args_free(&a);
	assert_int_equal(parse(&run_cmd, &a, &err, 1, "--"), -1);
	assert_string_equal(err.message, "missing argument COMMAND");
}

static void test_suggest(void **state)
{
	static const char *const words[] = { "list", "create", "kill", "current" };

	(void)state;
	assert_string_equal(ax_suggest("lsit", words, 4), "list");
	assert_string_equal(ax_suggest("creat", words, 4), "create");
	assert_string_equal(ax_suggest("cur", words, 4), "current");
	assert_null(ax_suggest("zebra", words, 4));
}

/* One verb's entry: what help, completion and the parser rely on. */
static void check_verb(const ax_group_spec *g, const ax_command_spec *const *v)
{
	const ax_command_spec *c = *v, *const *d;
	const ax_option_spec *o, *p;

	assert_string_equal(c->group, g->name);
	assert_non_null(c->handler);
	assert_non_null(c->summary);
	assert_true(!c->formats || (c->formats & c->default_format));
	/* The flag that widens a sandbox target to every sandbox exists. */
	if (c->target_all) {
		for (o = c->options; o && o->name && strcmp(o->name, c->target_all) != 0; o++)
			;
		assert_true(o && o->name && o->kind == AX_VAL_NONE && c->target == AX_TARGET_SANDBOX);
	}
	for (d = v + 1; *d; d++)
		assert_string_not_equal(c->name, (*d)->name);
	for (o = c->options; o && o->name; o++) {
		ax_error err;
		json_t *val;

		assert_non_null(o->help);
		assert_true(o->short_name != 'o' && o->short_name != 'h');
		/* Defaults and bounds are what the option's kind accepts. */
		if (o->defval) {
			val = ax_value_parse(o, o->defval, &err);
			if (!val)
				fail_msg("%s %s --%s: default '%s': %s", c->group, c->name, o->name, o->defval,
					 err.message);
			json_decref(val);
			assert_false(o->required);
		}
		if (o->min || o->max)
			assert_true(o->kind == AX_VAL_INT || o->kind == AX_VAL_DURATION);
		for (int b = 0; b < 2; b++) {
			const char *bound = b ? o->max : o->min;
			ax_option_spec unbounded = { .name = o->name, .kind = o->kind };

			if (!bound)
				continue;
			val = ax_value_parse(&unbounded, bound, &err);
			if (!val)
				fail_msg("--%s: bound '%s': %s", o->name, bound, err.message);
			json_decref(val);
		}
		assert_true(o->kind != AX_VAL_CHOICE || o->choices);
		for (p = o + 1; p->name; p++) {
			assert_string_not_equal(o->name, p->name);
			assert_true(!o->short_name || o->short_name != p->short_name);
		}
	}
}

static void test_table_is_consistent(void **state)
{
	const ax_group_spec *const *g, *const *h;
	const ax_command_spec *const *v;

	(void)state;
	for (g = registry.groups; *g; g++) {
		/* A group is a command only with a verb. */
		assert_non_null((*g)->verbs[0]);
		for (h = g + 1; *h; h++)
			assert_string_not_equal((*g)->name, (*h)->name);
		assert_ptr_equal(ax_registry_group(&registry, (*g)->name), *g);
		for (v = (*g)->verbs; *v; v++)
			check_verb(*g, v);
	}
	assert_null(ax_registry_group(&registry, "nosuch"));
}

static void test_group_verb(void **state)
{
	char *words[] = { (char *)"jupyter", (char *)"run", (char *)"x" };
	char *ls[] = { (char *)"ls", (char *)"/tmp" };
	int n;

	(void)state;
	assert_string_equal(ax_group_verb(&ax_group_aio, 3, words, &n)->name, "jupyter run");
	assert_int_equal(n, 2);
	assert_null(ax_group_verb(&ax_group_aio, 1, words, &n));
	assert_string_equal(ax_group_verb(&ax_group_file, 2, ls, &n)->name, "ls");
	assert_int_equal(n, 1);
	/* A group that is itself the verb takes no verb word. */
	assert_ptr_equal(ax_group_verb(&ax_group_run, 2, ls, &n), ax_group_run.verbs[0]);
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count_based_positionals),
		cmocka_unit_test(test_kv_both_forms),
		cmocka_unit_test(test_value_checks),
		cmocka_unit_test(test_kinds_bounds_required),
		cmocka_unit_test(test_typed_defaults),
		cmocka_unit_test(test_unknown_option_suggests),
		cmocka_unit_test(test_options_first_and_double_dash),
		cmocka_unit_test(test_suggest),
		cmocka_unit_test(test_table_is_consistent),
		cmocka_unit_test(test_group_verb),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
