/*
 * Output renderer tests. Rendered text is compared with golden files in
 * $GOLDEN_DIR (default tests/golden/output); run with UPDATE_GOLDEN=1 to
 * rewrite them after an intended change, then review the diff by eye.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* open_memstream, strndup, strtok_r */
#endif

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "lib/output.h"

static const char *const instance_cols[] = {
	"id", "name", "state", "region", "image", "created", NULL,
};
static const char *const narrow_cols[] = { "id", "name", "state", NULL };

static const char panel_json[] =
	"{\"id\": \"i-0a1b2c3d\", \"name\": \"web-1\", \"state\": \"running\","
	" \"region\": \"eu-west-1\", \"cpus\": 4, \"memory_gb\": 15.5, \"public\": true,"
	" \"ip\": null, \"tags\": {\"env\": \"prod\", \"team\": \"core\"}, \"ports\": [80, 443],"
	" \"description\": \"Front-end web server serving the marketing site and the"
	" customer dashboard; restarted nightly at 03:00 UTC.\"}";

static const char rows_json[] =
	"[{\"id\": \"i-0a1b2c3d\", \"name\": \"web-1\", \"state\": \"running\","
	"  \"region\": \"eu-west-1\", \"image\": \"ubuntu-22.04-server-cloudimg-amd64\","
	"  \"created\": \"2024-05-01T10:00:00Z\"},"
	" {\"id\": \"i-1b2c3d4e\", \"name\": \"worker-batch-processing-2\", \"state\": \"Pending\","
	"  \"region\": \"us-east-1\", \"image\": \"debian-12\", \"created\": \"2024-05-02T11:30:00Z\"},"
	" {\"id\": \"i-2c3d4e5f\", \"name\": \"db\", \"state\": \"stopped\", \"region\": \"eu-west-1\","
	"  \"image\": null, \"created\": \"2024-04-28T08:15:00Z\"},"
	" {\"id\": \"i-3d4e5f60\", \"name\": \"cache\\tnode\\nprimary\", \"state\": \"ERROR\","
	"  \"region\": \"ap-south-1\", \"image\": \"redis-7\", \"created\": \"2024-05-03T09:00:00Z\"},"
	" {\"id\": \"i-4e5f6071\", \"name\": \"paused-vm\", \"state\": \"paused\", \"image\": \"alpine\"},"
	" {\"id\": \"i-5f607182\", \"name\": \"mystery\", \"state\": \"hibernating\","
	"  \"region\": \"eu-west-1\", \"image\": \"custom\", \"created\": \"2024-05-04T00:00:00Z\","
	"  \"extra\": {\"cpus\": 2, \"gpu\": false}}]";

static const char wide_rows_json[] =
	"[{\"id\": \"u-1\", \"name\": \"日本語のサーバー名前です\", \"owner\": \"José\","
	"  \"note\": \"🚀 launch ready for production rollout\"},"
	" {\"id\": \"u-2\", \"name\": \"伺服器\", \"owner\": \"Zoë\", \"note\": \"e\\u0301clair 😀\"},"
	" {\"id\": \"u-3\", \"name\": \"сервер\", \"owner\": \"김민준\", \"note\": \"한국어 텍스트가 길어요 정말로\"}]";

static const char wide_panel_json[] =
	"{\"名前\": \"東京リージョンのウェブサーバー、本番環境で稼働中のもの\","
	" \"owner\": \"José 😀\", \"state\": \"ready\"}";

static const char nested_json[] =
	"{\"a\": {\"b\": {\"c\": [1, [2, 3], {\"d\": null, \"e\": [], \"f\": {}}]}},"
	" \"list\": [{\"x\": 1, \"y\": {\"z\": true}}, [], [[\"deep\"]]],"
	" \"empty_obj\": {}, \"empty_list\": [],"
	" \"reals\": [1.0, -0.5, 0.1, 1e20, 1.5e-7, 3.141592653589793],"
	" \"ints\": [0, -1, 9223372036854775807], \"bools\": [true, false], \"nil\": null}";

static const char tricky_json[] =
	"{\"empty\": \"\", \"lead\": \" leading\", \"trail\": \"trailing \","
	" \"int\": \"123\", \"octal\": \"0755\", \"real\": \"1.5\", \"neg\": \"-1\", \"plus\": \"+1\","
	" \"dot\": \".5\", \"exp\": \"1e3\", \"hex\": \"0x1F\", \"t\": \"true\", \"F\": \"False\","
	" \"yes\": \"YES\", \"no\": \"no\", \"on\": \"on\", \"off\": \"OFF\", \"y\": \"y\", \"n\": \"N\","
	" \"null\": \"null\", \"Null\": \"Null\", \"tilde\": \"~\", \"inf\": \".inf\", \"ninf\": \"-.Inf\","
	" \"nan\": \".nan\", \"date\": \"2024-05-01\", \"time\": \"12:30:45\", \"colon_space\": \"a: b\","
	" \"colon\": \"a:b\", \"colon_end\": \"a:\", \"hash\": \"#comment\", \"space_hash\": \"a #b\","
	" \"a#b\": \"a#b\", \"dash_item\": \"- item\", \"dash\": \"-\", \"question\": \"?\","
	" \"brackets\": \"[x]\", \"braces\": \"{y}\", \"anchor\": \"&anchor\", \"alias\": \"*alias\","
	" \"tag\": \"!tag\", \"pipe\": \"|\", \"gt\": \">\", \"squote\": \"'single'\","
	" \"dquote\": \"\\\"double\\\"\", \"percent\": \"%directive\", \"at\": \"@at\","
	" \"tick\": \"`tick`\", \"merge\": \"<<\", \"equals\": \"=\", \"comma\": \"a, b\","
	" \"multi\": \"multi\\nline\", \"nl_end\": \"trailing newline\\n\", \"two_nl\": \"two\\n\\n\","
	" \"indented\": \"  indented\\nlines\", \"crlf\": \"a\\r\\nb\", \"tab\": \"tab\\there\","
	" \"ctrl\": \"ctrl\\u0001char\", \"esc\": \"\\u001b[31mred\", \"unicode\": \"ünïcødé 日本\","
	" \"emoji\": \"emoji 😀\", \"backslash\": \"back\\\\slash\", \"spaces\": \"key with spaces\","
	" \"123\": \"numeric key\", \"true\": \"bool key\", \"\": \"empty key\", \"a: b\": \"colon key\","
	" \"multi\\nline key\": 1, \" \": \"space\"}";

/* ---- helpers ------------------------------------------------------------ */

static json_t *load(const char *text)
{
	json_error_t jerr;
	json_t *j = json_loads(text, JSON_DECODE_ANY, &jerr);

	if (!j)
		fail_msg("bad fixture: %s (line %d)", jerr.text, jerr.line);
	return j;
}

static ax_render_opts opts(ax_format f, bool color, bool utf8, int width)
{
	ax_render_opts o = { .format = f, .color = color, .utf8 = utf8, .width = width };
	return o;
}

/* Render to memory; asserts success. The caller frees. */
static char *render(const json_t *data, const ax_view *view, ax_render_opts o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ax_error err;
	int rc;

	assert_non_null(f);
	ax_error_clear(&err);
	rc = ax_render(f, data, view, &o, &err);
	assert_int_equal(fclose(f), 0);
	if (rc != 0)
		fail_msg("ax_render failed: %s", err.message);
	return buf;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void check_golden(const char *name, const json_t *data, const ax_view *view,
			 ax_render_opts o)
{
	const char *dir = getenv("GOLDEN_DIR");
	const char *update = getenv("UPDATE_GOLDEN");
	char path[4096], *got = render(data, view, o), *want;
	bool same;

	snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "tests/golden/output", name);
	if (update && strcmp(update, "1") == 0) {
		FILE *f = fopen(path, "wb");
		if (!f) {
			free(got);
			fail_msg("cannot write %s: %s", path, strerror(errno));
			return;
		}
		fputs(got, f);
		free(got);
		assert_int_equal(fclose(f), 0);
		return;
	}
	want = read_file(path);
	if (!want) {
		free(got);
		fail_msg("missing golden file %s (run with UPDATE_GOLDEN=1)", path);
		return;
	}
	same = strcmp(got, want) == 0;
	if (!same)
		fprintf(stderr, "--- expected %s\n%s--- got\n%s--- end\n", path, want, got);
	free(want);
	free(got);
	if (!same)
		fail_msg("output differs from %s", path);
}

static void golden_from(const char *name, const char *fixture, const ax_view *view,
			ax_render_opts o)
{
	json_t *data = load(fixture);

	check_golden(name, data, view, o);
	json_decref(data);
}

/* ---- YAML reader used to prove the emitter's output round-trips ---------- */

/* Plain scalars are resolved the strict (YAML 1.1) way, so an unquoted
 * "yes" or "0755" in our output makes the round trip fail. */
static json_t *resolve_plain(const char *s, size_t n)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };
	static const char *const trues[] = { "true", "True", "TRUE", "yes", "Yes", "YES",
					     "on", "On", "ON", "y", "Y" };
	static const char *const falses[] = { "false", "False", "FALSE", "no", "No", "NO",
					      "off", "Off", "OFF", "n", "N" };
	char *end;
	size_t i;

	for (i = 0; i < sizeof nulls / sizeof *nulls; i++)
		if (strcmp(s, nulls[i]) == 0)
			return json_null();
	for (i = 0; i < sizeof trues / sizeof *trues; i++)
		if (strcmp(s, trues[i]) == 0)
			return json_true();
	for (i = 0; i < sizeof falses / sizeof *falses; i++)
		if (strcmp(s, falses[i]) == 0)
			return json_false();
	i = s[0] == '-' || s[0] == '+';
	if (n > i && strspn(s + i, "0123456789") == n - i)
		return json_integer(strtoll(s, &end, 10));
	if (strchr("0123456789+-.", s[0])) {
		double d = strtod(s, &end);
		if (*end == '\0' && strchr(s, '.'))
			return json_real(d);
		return json_string("<ambiguous plain scalar>");
	}
	return json_stringn(s, n);
}

static json_t *yaml_value(yaml_parser_t *p, yaml_event_t *ev);

static bool next_event(yaml_parser_t *p, yaml_event_t *ev)
{
	if (!yaml_parser_parse(p, ev))
		fail_msg("YAML parse error: %s at line %zu", p->problem, p->problem_mark.line + 1);
	return true;
}

static json_t *yaml_value(yaml_parser_t *p, yaml_event_t *ev)
{
	yaml_event_t e, v;
	json_t *r;

	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
			return json_stringn((const char *)ev->data.scalar.value,
					    ev->data.scalar.length);
		return resolve_plain((const char *)ev->data.scalar.value, ev->data.scalar.length);
	case YAML_SEQUENCE_START_EVENT:
		r = json_array();
		while (next_event(p, &e) && e.type != YAML_SEQUENCE_END_EVENT) {
			json_array_append_new(r, yaml_value(p, &e));
			yaml_event_delete(&e);
		}
		yaml_event_delete(&e);
		return r;
	case YAML_MAPPING_START_EVENT:
		r = json_object();
		while (next_event(p, &e) && e.type != YAML_MAPPING_END_EVENT) {
			json_t *key = yaml_value(p, &e);
			assert_true(json_is_string(key));
			next_event(p, &v);
			json_object_set_new(r, json_string_value(key), yaml_value(p, &v));
			json_decref(key);
			yaml_event_delete(&e);
			yaml_event_delete(&v);
		}
		yaml_event_delete(&e);
		return r;
	default:
		fail_msg("unexpected YAML event %d", ev->type);
	}
	return NULL;
}

static json_t *yaml_to_json(const char *text)
{
	yaml_parser_t p;
	yaml_event_t e;
	json_t *r = NULL;

	assert_true(yaml_parser_initialize(&p));
	yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
	while (next_event(&p, &e) && e.type != YAML_STREAM_END_EVENT) {
		if (e.type != YAML_STREAM_START_EVENT && e.type != YAML_DOCUMENT_START_EVENT &&
		    e.type != YAML_DOCUMENT_END_EVENT) {
			assert_null(r);  /* exactly one document with one root */
			r = yaml_value(&p, &e);
		}
		yaml_event_delete(&e);
	}
	yaml_event_delete(&e);
	yaml_parser_delete(&p);
	assert_non_null(r);
	return r;
}

/* json_equal ignores key order; the dump compares it too. */
static void assert_same_data(const json_t *a, const json_t *b)
{
	char *da = json_dumps(a, JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
	char *db = json_dumps(b, JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);

	if (!json_equal(a, b) || strcmp(da, db) != 0)
		fail_msg("data differs:\n  %s\n  %s", da, db);
	free(da);
	free(db);
}

static const char *const all_fixtures[] = {
	panel_json, rows_json, wide_rows_json, wide_panel_json, nested_json, tricky_json,
	"[]", "{}", "\"just a string\"", "\"123\"", "42", "-0.25", "true", "null",
	"[1, \"two\", null, {\"k\": \"v\"}]",
};

/* Lines of TEXT, ANSI escapes skipped, must all be WIDTH cells wide. */
static void assert_line_widths(const char *text, int width, bool exact)
{
	char *copy = strdup(text), *save = NULL;

	assert_non_null(copy);
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int w = ax_display_width(line);
		if (exact ? w != width : w > width)
			fail_msg("line is %d cells, want %s%d: \"%s\"", w, exact ? "" : "<= ",
				 width, line);
	}
	free(copy);
}

/* ---- golden tests --------------------------------------------------------- */

static void test_panel_golden(void **state)
{
	ax_view v = { "Instance i-0a1b2c3d", NULL };

	(void)state;
	golden_from("panel.table.utf8", panel_json, &v, opts(AX_FMT_TABLE, false, true, 80));
	golden_from("panel.table.ascii", panel_json, &v, opts(AX_FMT_TABLE, false, false, 80));
	golden_from("panel.table.color", panel_json, &v, opts(AX_FMT_TABLE, true, true, 80));
	golden_from("panel.table.narrow", panel_json, &v, opts(AX_FMT_TABLE, false, true, 40));
	golden_from("panel.table.unlimited", panel_json, NULL, opts(AX_FMT_TABLE, false, true, 0));
	golden_from("panel.json", panel_json, &v, opts(AX_FMT_JSON, true, true, 80));
	golden_from("panel.yaml", panel_json, &v, opts(AX_FMT_YAML, true, true, 80));
	golden_from("panel.raw", panel_json, &v, opts(AX_FMT_RAW, true, true, 80));
}

static void test_rows_golden(void **state)
{
	ax_view v = { "Instances", instance_cols };
	ax_view narrow = { "Instances", narrow_cols };
	ax_view keys = { NULL, NULL };

	(void)state;
	golden_from("rows.table.utf8", rows_json, &v, opts(AX_FMT_TABLE, false, true, 0));
	golden_from("rows.table.ascii", rows_json, &v, opts(AX_FMT_TABLE, false, false, 0));
	golden_from("rows.table.color", rows_json, &v, opts(AX_FMT_TABLE, true, true, 0));
	golden_from("rows.table.w80", rows_json, &v, opts(AX_FMT_TABLE, false, true, 80));
	golden_from("rows.table.narrow", rows_json, &narrow, opts(AX_FMT_TABLE, false, true, 40));
	golden_from("rows.table.narrow.ascii", rows_json, &narrow,
		    opts(AX_FMT_TABLE, false, false, 40));
	golden_from("rows.json", rows_json, &v, opts(AX_FMT_JSON, false, true, 80));
	golden_from("rows.yaml", rows_json, &v, opts(AX_FMT_YAML, false, true, 80));
	golden_from("rows.raw", rows_json, &v, opts(AX_FMT_RAW, false, true, 80));
	golden_from("rows.raw.keys", rows_json, &keys, opts(AX_FMT_RAW, false, true, 80));
}

static void test_unicode_golden(void **state)
{
	ax_view v = { "Servers 🌏", NULL };

	(void)state;
	golden_from("unicode-wide.table", wide_rows_json, &v, opts(AX_FMT_TABLE, false, true, 50));
	golden_from("unicode-wide.table.unlimited", wide_rows_json, &v,
		    opts(AX_FMT_TABLE, false, true, 0));
	golden_from("unicode-wide.panel", wide_panel_json, &v, opts(AX_FMT_TABLE, false, true, 40));
	golden_from("unicode-wide.yaml", wide_rows_json, &v, opts(AX_FMT_YAML, false, true, 0));
}

static void test_empty_golden(void **state)
{
	ax_view v = { "Instances", instance_cols };
	ax_view untitled = { NULL, NULL };

	(void)state;
	golden_from("empty.table", "[]", &v, opts(AX_FMT_TABLE, false, true, 80));
	golden_from("empty.table.color", "[]", &v, opts(AX_FMT_TABLE, true, true, 80));
	golden_from("empty.table.untitled", "[]", &untitled, opts(AX_FMT_TABLE, false, true, 80));
	golden_from("empty-object.table", "{}", &v, opts(AX_FMT_TABLE, false, true, 80));
	golden_from("empty.yaml", "[]", &v, opts(AX_FMT_YAML, false, true, 80));
	golden_from("empty.json", "[]", &v, opts(AX_FMT_JSON, false, true, 80));
}

static void test_yaml_golden(void **state)
{
	(void)state;
	golden_from("nested.yaml", nested_json, NULL, opts(AX_FMT_YAML, false, true, 0));
	golden_from("nested.table", nested_json, NULL, opts(AX_FMT_TABLE, false, true, 0));
	golden_from("tricky-strings.yaml", tricky_json, NULL, opts(AX_FMT_YAML, false, true, 0));
	golden_from("tricky-strings.table", tricky_json, NULL, opts(AX_FMT_TABLE, false, true, 60));
}

static void test_scalars_golden(void **state)
{
	(void)state;
	golden_from("scalars.raw", "[1, \"two\", null, 2.5, true, {\"k\": \"v\"}, [3]]", NULL,
		    opts(AX_FMT_RAW, false, true, 0));
	golden_from("scalars.table", "[1, \"two\", null, 2.5, true, {\"k\": \"v\"}, [3]]", NULL,
		    opts(AX_FMT_TABLE, false, true, 0));
}

/* ---- behaviour ------------------------------------------------------------ */

static void test_raw_string_verbatim(void **state)
{
	json_t *s = json_string("line one\nline two");
	json_t *n = json_integer(7);
	char *out;

	(void)state;
	out = render(s, NULL, opts(AX_FMT_RAW, true, true, 80));
	assert_string_equal(out, "line one\nline two");
	free(out);
	out = render(n, NULL, opts(AX_FMT_RAW, true, true, 80));
	assert_string_equal(out, "7\n");
	free(out);
	out = render(s, NULL, opts(AX_FMT_JSON, true, true, 80));
	assert_string_equal(out, "\"line one\\nline two\"\n");
	free(out);
	json_decref(s);
	json_decref(n);
}

static void test_yaml_round_trip(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof all_fixtures / sizeof *all_fixtures; i++) {
		json_t *data = load(all_fixtures[i]);
		char *out = render(data, NULL, opts(AX_FMT_YAML, false, true, 80));
		json_t *back = yaml_to_json(out);

		assert_same_data(data, back);
		json_decref(back);
		json_decref(data);
		free(out);
	}
}

static void test_json_round_trip(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof all_fixtures / sizeof *all_fixtures; i++) {
		json_t *data = load(all_fixtures[i]);
		char *out = render(data, NULL, opts(AX_FMT_JSON, true, true, 80));
		size_t n = strlen(out);
		json_t *back = json_loads(out, JSON_DECODE_ANY, NULL);

		assert_true(n > 0 && out[n - 1] == '\n');
		assert_non_null(back);
		assert_same_data(data, back);
		json_decref(back);
		json_decref(data);
		free(out);
	}
}

static void test_json_keeps_utf8(void **state)
{
	json_t *data = load(wide_panel_json);
	char *out = render(data, NULL, opts(AX_FMT_JSON, false, false, 0));

	(void)state;
	assert_non_null(strstr(out, "\"名前\""));
	assert_null(strstr(out, "\\u"));
	free(out);
	json_decref(data);
}

static void test_no_escapes_without_color(void **state)
{
	static const ax_format fmts[] = { AX_FMT_TABLE, AX_FMT_JSON, AX_FMT_YAML, AX_FMT_RAW };
	ax_view v = { "Title", NULL };

	(void)state;
	for (size_t i = 0; i < sizeof all_fixtures / sizeof *all_fixtures; i++) {
		json_t *data = load(all_fixtures[i]);
		for (size_t f = 0; f < 4; f++) {
			for (int utf8 = 0; utf8 <= 1; utf8++) {
				char *out = render(data, &v, opts(fmts[f], false, utf8, 50));
				/* tricky.json carries an ESC byte that json and yaml escape */
				if (fmts[f] != AX_FMT_RAW)
					assert_null(strchr(out, '\033'));
				free(out);
			}
		}
		json_decref(data);
	}
}

/* hostile.sh: names from a sandbox with C0 and C1 controls (U+009B is CSI
 * to some terminals) come out of table mode as spaces. */
static void test_table_flattens_controls(void **state)
{
	static const char *const cols[] = { "name", NULL };
	json_t *rows = json_pack("[{s:s}, {s:s}]", "name", "a\033]0;t\007b", "name", "c\302\2332Jd\302\205e");
	ax_view v = { "Files", cols };
	char *out;

	(void)state;
	for (int utf8 = 0; utf8 <= 1; utf8++) {
		out = render(rows, &v, opts(AX_FMT_TABLE, false, utf8, 80));
		assert_null(strchr(out, '\033'));
		assert_null(strchr(out, '\007'));
		assert_null(strstr(out, "\302\233"));
		assert_null(strstr(out, "\302\205"));
		assert_non_null(strstr(out, "a ]0;t b"));
		assert_non_null(strstr(out, "c  2Jd  e"));
		free(out);
	}
	json_decref(rows);
}

/* Every colour span is closed on the line it opens on. */
static void test_color_spans_reset(void **state)
{
	ax_view v = { "Title", NULL };

	(void)state;
	for (size_t i = 0; i < sizeof all_fixtures / sizeof *all_fixtures; i++) {
		json_t *data = load(all_fixtures[i]);
		for (int utf8 = 0; utf8 <= 1; utf8++) {
			char *out = render(data, &v, opts(AX_FMT_TABLE, true, utf8, 60));
			char *save = NULL;
			for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
				int opens = 0, resets = 0;
				const char *last = NULL;
				for (const char *p = strstr(l, "\033["); p; p = strstr(p + 1, "\033[")) {
					last = p;
					if (strncmp(p, "\033[0m", 4) == 0)
						resets++;
					else
						opens++;
				}
				assert_int_equal(opens, resets);
				if (last)
					assert_int_equal(strncmp(last, "\033[0m", 4), 0);
			}
			free(out);
		}
		json_decref(data);
	}
}

static void test_table_fits_width(void **state)
{
	json_t *rows = load(rows_json), *panel = load(panel_json), *wide = load(wide_rows_json);
	ax_view narrow = { NULL, narrow_cols };
	ax_view all = { "Instances", NULL };

	(void)state;
	for (int w = 30; w <= 130; w++) {
		char *out = render(rows, &narrow, opts(AX_FMT_TABLE, false, true, w));
		assert_line_widths(out, w, false);
		free(out);
		out = render(panel, &all, opts(AX_FMT_TABLE, false, w % 2, w));
		assert_line_widths(out, w, false);
		free(out);
		out = render(wide, &narrow, opts(AX_FMT_TABLE, false, true, w));
		assert_line_widths(out, w, false);
		assert_int_not_equal(mbstowcs(NULL, out, 0), (size_t)-1);
		free(out);
	}
	json_decref(rows);
	json_decref(panel);
	json_decref(wide);
}

static void test_box_lines_aligned(void **state)
{
	json_t *rows = load(rows_json), *panel = load(panel_json), *wide = load(wide_rows_json);
	const json_t *datas[] = { rows, panel, wide };
	ax_view v = { NULL, NULL };

	(void)state;
	/* Every line of a box is as wide as its top border. */
	for (size_t i = 0; i < 3; i++) {
		for (int w = 0; w <= 100; w += 25) {
			char *first, *out = render(datas[i], &v, opts(AX_FMT_TABLE, false, true, w));
			first = strndup(out, strcspn(out, "\n"));
			assert_line_widths(out, ax_display_width(first), true);
			free(first);
			free(out);
		}
	}
	json_decref(rows);
	json_decref(panel);
	json_decref(wide);
}

static void test_id_never_cut(void **state)
{
	json_t *data = load("[{\"id\": \"a-very-long-identifier-0123456789\", \"name\": \"x\"}]");
	char *out = render(data, NULL, opts(AX_FMT_TABLE, false, true, 20));

	(void)state;
	assert_non_null(strstr(out, "a-very-long-identifier-0123456789"));
	free(out);
	json_decref(data);
}

static void test_display_width(void **state)
{
	(void)state;
	assert_int_equal(ax_display_width(NULL), 0);
	assert_int_equal(ax_display_width(""), 0);
	assert_int_equal(ax_display_width("abc"), 3);
	assert_int_equal(ax_display_width("日本"), 4);
	assert_int_equal(ax_display_width("😀x"), 3);
	assert_int_equal(ax_display_width("e\xcc\x81"), 1);   /* e + combining acute */
	assert_int_equal(ax_display_width("a\xff" "b"), 3);    /* invalid byte */
	assert_int_equal(ax_display_width("\xe6\x97"), 2);    /* truncated sequence */
	assert_int_equal(ax_display_width("─│●"), 3);
}

static void test_format_names(void **state)
{
	(void)state;
	assert_int_equal(ax_format_from_name("table"), AX_FMT_TABLE);
	assert_int_equal(ax_format_from_name("json"), AX_FMT_JSON);
	assert_int_equal(ax_format_from_name("yaml"), AX_FMT_YAML);
	assert_int_equal(ax_format_from_name("raw"), AX_FMT_RAW);
	assert_int_equal(ax_format_from_name("xml"), 0);
	assert_int_equal(ax_format_from_name(""), 0);
	assert_int_equal(ax_format_from_name(NULL), 0);
	assert_string_equal(ax_format_name(AX_FMT_YAML), "yaml");
	assert_string_equal(ax_format_name(AX_FMT_RAW), "raw");
	assert_string_equal(ax_format_name(0), "unknown");
}

static void render_to_full(ax_format fmt, bool unbuffered, size_t copies)
{
	json_t *rows = load(rows_json), *many = json_array();
	FILE *f = fopen("/dev/full", "w");
	ax_render_opts o = opts(fmt, false, true, 0);
	ax_error err;

	if (!f)
		skip();
	if (unbuffered)
		setvbuf(f, NULL, _IONBF, 0);
	for (size_t i = 0; i < copies; i++)
		json_array_extend(many, rows);
	ax_error_clear(&err);
	assert_int_equal(ax_render(f, many, NULL, &o, &err), -1);
	assert_int_equal(err.exit_code, AX_EXIT_FAILURE);
	assert_int_equal(err.code, AX_CODE_IO);
	assert_non_null(strstr(err.message, "cannot write output: "));
	assert_non_null(strstr(err.message, strerror(ENOSPC)));
	fclose(f);
	json_decref(many);
	json_decref(rows);
}

static void test_write_error(void **state)
{
	static const ax_format fmts[] = { AX_FMT_TABLE, AX_FMT_JSON, AX_FMT_YAML, AX_FMT_RAW };

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		render_to_full(fmts[i], false, 1);
		render_to_full(fmts[i], false, 500);  /* fails mid-render, not at flush */
		render_to_full(fmts[i], true, 1);
	}
}

static void test_bad_input(void **state)
{
	ax_render_opts o = opts((ax_format)0, false, true, 0);
	json_t *bad = json_stringn_nocheck("\xff\xfe", 2);
	ax_error err;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	ax_error_clear(&err);
	assert_int_equal(ax_render(f, bad, NULL, &o, &err), -1);
	assert_int_equal(err.code, AX_CODE_INTERNAL);
	/* jansson can hold bytes that are not UTF-8; YAML cannot. */
	o.format = AX_FMT_YAML;
	ax_error_clear(&err);
	assert_int_equal(ax_render(f, bad, NULL, &o, &err), -1);
	assert_int_equal(err.code, AX_CODE_YAML);
	/* the table copes: invalid bytes are one cell each */
	o.format = AX_FMT_TABLE;
	assert_int_equal(ax_render(f, bad, NULL, &o, &err), 0);
	/* NULL data and options mean null, rendered as a table */
	assert_int_equal(ax_render(f, NULL, NULL, NULL, &err), 0);
	fclose(f);
	free(buf);
	json_decref(bad);
}

/* Measured values print as written, and still read back exactly. */
static void test_json_short_reals(void **state)
{
	json_t *data = json_pack("{s:f, s:f}", "ready", 0.03, "t", 1.25);
	char *out = render(data, NULL, opts(AX_FMT_JSON, false, true, 0));

	(void)state;
	assert_string_equal(out, "{\n  \"ready\": 0.03,\n  \"t\": 1.25\n}\n");
	free(out);
	json_decref(data);
}

/* ---- streams and results ------------------------------------------------ */

/* A stream into two memory files: what was shown. */
struct shown {
	FILE *out, *err;
	char *obuf, *ebuf;
	size_t olen, elen;
};

static void shown_open(struct shown *w)
{
	memset(w, 0, sizeof *w);
	w->out = open_memstream(&w->obuf, &w->olen);
	w->err = open_memstream(&w->ebuf, &w->elen);
	assert_non_null(w->out);
	assert_non_null(w->err);
}

static void shown_close(struct shown *w)
{
	fclose(w->out);
	fclose(w->err);
	free(w->obuf);
	free(w->ebuf);
}

/* Raw and table (and commands without -o) show output as it comes, people's
 * notes included, and keep nothing. */
static void test_stream_live(void **state)
{
	ax_render_opts o = opts(AX_FMT_RAW, false, true, 0);
	struct shown w;
	ax_stream s;
	json_t *kept;

	(void)state;
	shown_open(&w);
	ax_stream_init(&s, w.out, w.err, &o);
	assert_true(ax_stream_live(&s));
	assert_int_equal(ax_stream_write(&s, AX_STREAM_OUT, "a\n", 2), 0);
	/* Flushed at once: a person watching sees it before the command ends. */
	assert_int_equal(w.olen, 2);
	assert_int_equal(ax_stream_write(&s, AX_STREAM_ERR, "e", 1), 0);
	assert_int_equal(ax_stream_printf(&s, AX_STREAM_ERR, "note %d\n", 7), 0);
	assert_string_equal(w.obuf, "a\n");
	assert_string_equal(w.ebuf, "enote 7\n");
	kept = ax_stream_kept(&s, AX_STREAM_OUT);
	assert_string_equal(json_string_value(kept), "");
	json_decref(kept);
	ax_stream_free(&s);
	shown_close(&w);
}

/* Json and yaml show nothing while the command runs: output is kept for the
 * document, notes for people are dropped, bytes that are not UTF-8 cannot be
 * a JSON string. */
static void test_stream_document(void **state)
{
	ax_format formats[] = { AX_FMT_JSON, AX_FMT_YAML };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		ax_render_opts o = opts(formats[i], false, true, 0);
		struct shown w;
		ax_stream s;
		json_t *kept;

		shown_open(&w);
		ax_stream_init(&s, w.out, w.err, &o);
		assert_false(ax_stream_live(&s));
		assert_int_equal(ax_stream_write(&s, AX_STREAM_OUT, "a\n", 2), 0);
		assert_int_equal(ax_stream_write(&s, AX_STREAM_OUT, "b", 1), 0);
		assert_int_equal(ax_stream_printf(&s, AX_STREAM_ERR, "note\n"), 0);
		fflush(w.out);
		fflush(w.err);
		assert_int_equal(w.olen, 0);
		assert_int_equal(w.elen, 0);
		kept = ax_stream_kept(&s, AX_STREAM_OUT);
		assert_string_equal(json_string_value(kept), "a\nb");
		json_decref(kept);
		assert_int_equal(ax_stream_write(&s, AX_STREAM_ERR, "\377", 1), 0);
		assert_null(ax_stream_kept(&s, AX_STREAM_ERR));
		ax_stream_free(&s);
		shown_close(&w);
	}
}

/* A failure the document records: an error for people, a bare exit status
 * for programs. */
static void test_stream_failed(void **state)
{
	ax_render_opts raw = opts(AX_FMT_RAW, false, true, 0), json = opts(AX_FMT_JSON, false, true, 0);
	ax_stream s;
	ax_error err;

	(void)state;
	ax_stream_init(&s, stdout, stderr, &raw);
	ax_fail(&err, AX_CODE_JUPYTER, "status: error");
	assert_int_equal(ax_stream_failed(&s, 1, &err), -1);
	assert_string_equal(err.message, "status: error");
	ax_stream_init(&s, stdout, stderr, &json);
	assert_int_equal(ax_stream_failed(&s, 1, &err), 1);
	assert_string_equal(err.message, "");
}

/* RES rendered in F is exactly WANT. */
static void expect_rendered(const ax_result *res, ax_format f, const char *want)
{
	ax_render_opts o = opts(f, false, true, 0);
	struct shown w;
	ax_error err;

	shown_open(&w);
	assert_int_equal(ax_render_result(w.out, res, &o, &err), 0);
	fflush(w.out);
	assert_string_equal(w.obuf ? w.obuf : "", want);
	shown_close(&w);
}

/* Documents render the data; table and raw what people see, when given; a
 * stream's live output was shown already, so nothing more. */
static void test_render_result(void **state)
{
	ax_result data = { .kind = AX_RESULT_DATA }, stream = { .kind = AX_RESULT_STREAM };

	(void)state;
	data.data = json_pack("{s:s, s:s}", "path", "/f", "content", "hi");
	data.human = json_string("hi");
	expect_rendered(&data, AX_FMT_RAW, "hi");
	expect_rendered(&data, AX_FMT_JSON, "{\n  \"path\": \"/f\",\n  \"content\": \"hi\"\n}\n");
	expect_rendered(&data, AX_FMT_YAML, "path: /f\ncontent: hi\n");
	stream.data = json_pack("{s:i}", "exit_code", 0);
	expect_rendered(&stream, AX_FMT_RAW, "");
	expect_rendered(&stream, AX_FMT_JSON, "{\n  \"exit_code\": 0\n}\n");
	json_decref(data.data);
	json_decref(data.human);
	json_decref(stream.data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_panel_golden),
		cmocka_unit_test(test_stream_live),
		cmocka_unit_test(test_stream_document),
		cmocka_unit_test(test_stream_failed),
		cmocka_unit_test(test_render_result),
		cmocka_unit_test(test_rows_golden),
		cmocka_unit_test(test_unicode_golden),
		cmocka_unit_test(test_empty_golden),
		cmocka_unit_test(test_yaml_golden),
		cmocka_unit_test(test_scalars_golden),
		cmocka_unit_test(test_raw_string_verbatim),
		cmocka_unit_test(test_yaml_round_trip),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_json_short_reals),
		cmocka_unit_test(test_json_keeps_utf8),
		cmocka_unit_test(test_no_escapes_without_color),
		cmocka_unit_test(test_table_flattens_controls),
		cmocka_unit_test(test_color_spans_reset),
		cmocka_unit_test(test_table_fits_width),
		cmocka_unit_test(test_box_lines_aligned),
		cmocka_unit_test(test_id_never_cut),
		cmocka_unit_test(test_display_width),
		cmocka_unit_test(test_format_names),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_bad_input),
	};

	if (!setlocale(LC_ALL, "C.UTF-8"))
		return 77;  /* automake's "skipped" */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
