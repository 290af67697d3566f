#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/toml.h"

static json_t *parse_ok(const char *text)
{
	ax_error err;
	json_t *v = NULL;

	memset(&err, 0, sizeof err);
	if (toml_parse(text, strlen(text), &v, &err) != 0)
		fail_msg("unexpected error %s for:\n%s", err.message, text);
	assert_non_null(v);
	return v;
}

/* TEXT must parse to exactly the JSON in WANT (key order included). */
static void check_parse(const char *text, const char *want)
{
	json_t *v = parse_ok(text);
	char *got = json_dumps(v, JSON_COMPACT);

	assert_string_equal(got, want);
	free(got);
	json_decref(v);
}

static void check_error(const char *text, size_t len, const char *want)
{
	ax_error err;
	json_t *v = (json_t *)1;

	memset(&err, 0, sizeof err);
	if (toml_parse(text, len, &v, &err) != -1)
		fail_msg("expected error '%s' for: %s", want, text);
	assert_null(v);
	assert_string_equal(err.message, want);
	assert_int_equal(err.code, AX_CODE_CONFIG);
	assert_int_equal(err.exit_code, AX_EXIT_FAILURE);
}

static char *set_ok(const char *text, const char *key, json_t *value)
{
	ax_error err;
	char *out = NULL;

	memset(&err, 0, sizeof err);
	if (toml_set(text, text ? strlen(text) : 0, key, value, &out, &err) != 0)
		fail_msg("toml_set %s: %s", key, err.message);
	json_decref(value);
	assert_non_null(out);
	return out;
}

static void check_set(const char *text, const char *key, json_t *value, const char *want)
{
	char *out = set_ok(text, key, value);

	assert_string_equal(out, want);
	free(out);
}

static void test_parse_basic(void **state)
{
	(void)state;
	check_parse("", "{}");
	check_parse("\n\n# only a comment\n   \n", "{}");
	check_parse("a = 1\nb = \"x\"\nc = true\nd = false\ne = 1.5\n",
		    "{\"a\":1,\"b\":\"x\",\"c\":true,\"d\":false,\"e\":1.5}");
	/* Insertion order is kept, not sorted. */
	check_parse("z = 1\na = 2\nm = 3", "{\"z\":1,\"a\":2,\"m\":3}");
	check_parse("  a=1 # trailing\n\t b\t=\t2\t\n", "{\"a\":1,\"b\":2}");
	check_parse("a = 1\r\nb = 2\r\n# c\r\n", "{\"a\":1,\"b\":2}");
	check_parse("\xef\xbb\xbf" "a = 1\n", "{\"a\":1}");
	check_parse("# \xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\n", "{}");
}

static void test_parse_keys(void **state)
{
	(void)state;
	check_parse("bare_key-1 = 1\n1234 = 2\n\"quoted key\" = 3\n'lit.key' = 4\n\"\" = 5\n",
		    "{\"bare_key-1\":1,\"1234\":2,\"quoted key\":3,\"lit.key\":4,\"\":5}");
	check_parse("a.b.c = 1\na . b . d = 2\na.\"e.f\" = 3\n",
		    "{\"a\":{\"b\":{\"c\":1,\"d\":2},\"e.f\":3}}");
	check_parse("true = 1\nfalse = 2\ninf = 3\n", "{\"true\":1,\"false\":2,\"inf\":3}");
}

static void test_parse_tables(void **state)
{
	(void)state;
	check_parse("[server]\nhost = \"h\"\n[server.tls]\ncert = \"c\"\n[client]\n",
		    "{\"server\":{\"host\":\"h\",\"tls\":{\"cert\":\"c\"}},\"client\":{}}");
	/* An implicit table may be defined once later. */
	check_parse("[a.b.c]\nx = 1\n[a]\ny = 2\n", "{\"a\":{\"b\":{\"c\":{\"x\":1}},\"y\":2}}");
	check_parse("[ a . \"b c\" . 'd' ]\nx = 1\n", "{\"a\":{\"b c\":{\"d\":{\"x\":1}}}}");
	/* Sub-tables of dotted-key tables are fine. */
	check_parse("[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n"
		    "[fruit.apple.texture]\nsmooth = true\n",
		    "{\"fruit\":{\"apple\":{\"color\":\"red\",\"taste\":{\"sweet\":true},"
		    "\"texture\":{\"smooth\":true}}}}");
	check_parse("a.b = 1\n[a.c]\nd = 2\n", "{\"a\":{\"b\":1,\"c\":{\"d\":2}}}");
	check_parse("[a] # comment\n[b]\t\n", "{\"a\":{},\"b\":{}}");
}

static void test_parse_numbers(void **state)
{
	(void)state;
	check_parse("a = 0\nb = +7\nc = -17\nd = 1_000_000\ne = -0\n",
		    "{\"a\":0,\"b\":7,\"c\":-17,\"d\":1000000,\"e\":0}");
	check_parse("a = 9223372036854775807\nb = -9223372036854775808\n",
		    "{\"a\":9223372036854775807,\"b\":-9223372036854775808}");
	check_parse("a = 0xDEAD_beef\nb = 0o755\nc = 0b1101\nd = 0x7fffffffffffffff\ne = 0x00ff\n",
		    "{\"a\":3735928559,\"b\":493,\"c\":13,\"d\":9223372036854775807,\"e\":255}");
	check_parse("a = 1.0\nb = -0.5\nc = 5e+2\nd = 1E-2\ne = 6.25e1\nf = 1_0.5_0\ng = 0e0\nh = 1e06\n",
		    "{\"a\":1.0,\"b\":-0.5,\"c\":500.0,\"d\":0.01,\"e\":62.5,\"f\":10.5,\"g\":0.0,\"h\":1000000.0}");
}

static void test_parse_strings(void **state)
{
	(void)state;
	check_parse("a = \"tab\\there\\nnl \\\"q\\\" \\\\ \\b\\f\\r\"\n",
		    "{\"a\":\"tab\\there\\nnl \\\"q\\\" \\\\ \\b\\f\\r\"}");
	check_parse("a = \"\\u00e9\\u20AC\\U0001F600\"\n", "{\"a\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"}");
	check_parse("a = 'C:\\path\\n \"raw\"'\nb = ''\nc = \"\"\n",
		    "{\"a\":\"C:\\\\path\\\\n \\\"raw\\\"\",\"b\":\"\",\"c\":\"\"}");
	check_parse("a = \"\xc3\xa9t\xc3\xa9\ttab\" # \"not\" = 1\n", "{\"a\":\"\xc3\xa9t\xc3\xa9\\ttab\"}");
	check_parse("a = \"# not a comment\"\n", "{\"a\":\"# not a comment\"}");
}

static void test_parse_arrays(void **state)
{
	(void)state;
	check_parse("a = []\nb = [1, 2, 3]\nc = [ \"x\", 'y', ]\nd = [[1, 2], [\"m\", true], []]\n",
		    "{\"a\":[],\"b\":[1,2,3],\"c\":[\"x\",\"y\"],\"d\":[[1,2],[\"m\",true],[]]}");
	check_parse("a = [\n  1, # one\n\n  2 # two\n  , 3,\n  # end\n]\nb = 1\n",
		    "{\"a\":[1,2,3],\"b\":1}");
	check_parse("a = [1, 2.5, \"s\", {x = 1}]\n", "{\"a\":[1,2.5,\"s\",{\"x\":1}]}");
}

static void test_parse_inline(void **state)
{
	(void)state;
	check_parse("a = {}\nb = { x = 1, y = \"z\" }\nc = {d.e = 1, d.f = {g = [1]}}\n",
		    "{\"a\":{},\"b\":{\"x\":1,\"y\":\"z\"},\"c\":{\"d\":{\"e\":1,\"f\":{\"g\":[1]}}}}");
	check_parse("[t]\nv = { \"k k\" = 'v' }\n", "{\"t\":{\"v\":{\"k k\":\"v\"}}}");
}

static void test_parse_errors(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "a = 1\n\nname \"x\"\n", "3:6: expected '=' after key" },
		{ "a = 1\nb = 2\nkey = value\n", "3:7: invalid value" },
		{ "\n\n\n\n\"abc = 1\n", "5:1: unterminated string" },
		{ "a = \"abc\n", "1:5: unterminated string" },
		{ "a = 'abc", "1:5: unterminated string" },
		{ "x = 1\ndate = 1979-05-27\n", "2:8: dates are not supported" },
		{ "t = 07:32:00\n", "1:5: dates are not supported" },
		{ "a = 1\na = 2\n", "2:1: duplicate key" },
		{ "a.b = 1\na.b = 2\n", "2:3: duplicate key" },
		{ "[a]\n[a]\n", "2:2: table already defined" },
		{ "[a]\nb = 1\n[a.b]\n", "3:4: duplicate key" },
		{ "[a]\nb = 1\n[a.b.c]\n", "3:4: key is not a table" },
		{ "a = 1\n[a]\n", "2:2: duplicate key" },
		{ "[a]\nb.c = 1\n[a.b]\n", "3:4: table already defined" },
		{ "[a.b.c]\n[a]\nb.d = 1\n", "3:1: table already defined" },
		{ "a.b = 1\n[a]\n", "2:2: table already defined" },
		{ "a = {}\n[a]\n", "2:2: table already defined" },
		{ "a = {}\n[a.b]\n", "2:2: cannot extend inline table" },
		{ "a = {b = 1}\na.c = 2\n", "2:1: cannot extend inline table" },
		{ "a = \"x\"\na.b = 1\n", "2:1: key is not a table" },
		{ "[[a]]\n", "1:1: arrays of tables are not supported" },
		{ "a = \"\"\"multi\"\"\"\n", "1:5: multi-line strings are not supported" },
		{ "a = '''x'''\n", "1:5: multi-line strings are not supported" },
		{ "a = \"bad \\q escape\"\n", "1:10: invalid escape" },
		{ "a = \"\\u12G4\"\n", "1:6: invalid unicode escape" },
		{ "a = \"\\uD800\"\n", "1:6: invalid unicode escape" },
		{ "a = \"\\U00110000\"\n", "1:6: invalid unicode escape" },
		{ "a = \"\\u0000\"\n", "1:6: nul byte not allowed" },
		{ "a = \"x\x01y\"\n", "1:7: control character not allowed" },
		{ "# bell \x07\n", "1:8: control character not allowed" },
		{ "a = \"\xc3\xa9\xff\"\n", "1:7: invalid utf-8" },
		{ "# \xc0\xaf overlong\n", "1:3: invalid utf-8" },
		{ "a = \"\xed\xa0\x80\"\n", "1:6: invalid utf-8" },
		{ "a = 9223372036854775808\n", "1:5: integer out of range" },
		{ "a = -9223372036854775809\n", "1:5: integer out of range" },
		{ "a = 0x8000000000000000\n", "1:5: integer out of range" },
		{ "a = 1e400\n", "1:5: float out of range" },
		{ "a = inf\n", "1:5: inf and nan are not supported" },
		{ "a = -nan\n", "1:5: inf and nan are not supported" },
		{ "a = 01\n", "1:5: invalid number" },
		{ "a = 1__0\n", "1:5: invalid number" },
		{ "a = 1_\n", "1:5: invalid number" },
		{ "a = 1.\n", "1:5: invalid number" },
		{ "a = .5\n", "1:5: invalid number" },
		{ "a = 1e\n", "1:5: invalid number" },
		{ "a = 0X1F\n", "1:5: invalid number" },
		{ "a = -0x1\n", "1:5: invalid number" },
		{ "a = 0b102\n", "1:5: invalid number" },
		{ "a = 1.2.3\n", "1:5: invalid number" },
		{ "a = +\n", "1:5: invalid number" },
		{ "a = \n", "1:5: expected value" },
		{ "a =", "1:4: expected value" },
		{ "a = [1 2]\n", "1:8: expected ',' or ']'" },
		{ "a = [1,\n2\n", "1:5: unterminated array" },
		{ "a = [,]\n", "1:6: expected value" },
		{ "a = {b = 1\n", "1:5: unterminated inline table" },
		{ "a = {b = 1,}\n", "1:11: trailing comma in inline table" },
		{ "a = {b = 1 c = 2}\n", "1:12: expected ',' or '}'" },
		{ "a = {b = 1, b = 2}\n", "1:13: duplicate key" },
		{ "a = 1 2\n", "1:7: unexpected text after value" },
		{ "a = truex\n", "1:5: invalid value" },
		{ "[a] b = 1\n", "1:5: unexpected text after table header" },
		{ "[a b]\n", "1:4: expected ']' after table name" },
		{ "[]\n", "1:2: expected key" },
		{ "= 1\n", "1:1: expected key" },
		{ "a.= 1\n", "1:3: expected key" },
		{ "a = 1\r2 = 3\n", "1:6: unexpected text after value" },
		{ "\xc3\xa9t\xc3\xa9 = 1\n", "1:1: expected key" },
		{ "k = \"\xc3\xa9\" x\n", "1:9: unexpected text after value" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		check_error(cases[i].text, strlen(cases[i].text), cases[i].want);
	/* NUL bytes never pass, wherever they are. */
	check_error("a = \"x\0y\"\n", 10, "1:7: nul byte not allowed");
	check_error("# x\0\n", 5, "1:4: nul byte not allowed");
	check_error("a = 1\0", 6, "1:6: unexpected text after value");
	/* The text need not be NUL-terminated. */
	check_error("a = \"abc\"", 7, "1:5: unterminated string");
	check_error("a = 12", 4, "1:5: expected value");
}

static void check_roundtrip(json_t *v);

static void test_depth(void **state)
{
	char *doc = malloc(100000), *p;
	json_t *v, *deep;
	int i;

	(void)state;
	p = doc + sprintf(doc, "a = ");
	for (i = 0; i < 10000; i++)
		*p++ = '[';
	*p = '\0';
	check_error(doc, strlen(doc), "1:69: nesting too deep");
	p = doc + sprintf(doc, "a = ");
	for (i = 0; i < 10000; i++)
		p += sprintf(p, "{b=");
	check_error(doc, strlen(doc), "1:197: nesting too deep");
	p = doc;
	for (i = 0; i < 10000; i++)
		p += sprintf(p, "k.");
	sprintf(p, "k = 1\n");
	check_error(doc, strlen(doc), "1:129: nesting too deep");
	p = doc + sprintf(doc, "[");
	for (i = 0; i < 10000; i++)
		p += sprintf(p, "k.");
	sprintf(p, "k]\n");
	check_error(doc, strlen(doc), "1:130: nesting too deep");
	/* 64 levels of arrays under a top-level key still parse. */
	p = doc + sprintf(doc, "a = ");
	for (i = 0; i < 64; i++)
		*p++ = '[';
	for (i = 0; i < 64; i++)
		*p++ = ']';
	*p = '\0';
	json_decref(parse_ok(doc));
	/* The deepest dotted key that parses also formats and reads back. */
	p = doc;
	for (i = 0; i < 64; i++)
		p += sprintf(p, "k.");
	sprintf(p, "k = 1\n");
	v = parse_ok(doc);
	check_roundtrip(json_incref(json_object_get(v, "k")));
	json_decref(v);
	/* One level more than the parser reads is not written. */
	deep = json_integer(1);
	for (i = 0; i < 64; i++)
		deep = json_pack("[o]", deep);
	p = toml_format_value(deep);
	assert_non_null(p);
	free(p);
	deep = json_pack("[o]", deep);
	assert_null(toml_format_value(deep));
	json_decref(deep);
	free(doc);
}

static void test_format_value(void **state)
{
	static const struct {
		const char *json, *toml;
	} cases[] = {
		{ "\"plain\"", "\"plain\"" },
		{ "\"a\\\"b\\\\c\\nd\\te\\r\\u0001\\u001f\\u007f\"", "\"a\\\"b\\\\c\\nd\\te\\r\\u0001\\u001F\\u007F\"" },
		{ "\"\xc3\xa9\xe2\x82\xac\"", "\"\xc3\xa9\xe2\x82\xac\"" },
		{ "42", "42" },
		{ "-9223372036854775808", "-9223372036854775808" },
		{ "1.0", "1.0" },
		{ "0.1", "0.1" },
		{ "-2.5", "-2.5" },
		{ "1e300", "1e+300" },
		{ "1.5e-7", "1.5e-07" },
		{ "100.0", "100.0" },
		{ "1e15", "1000000000000000.0" },
		{ "1.25e16", "1.25e+16" },
		{ "123456.5", "123456.5" },
		{ "true", "true" },
		{ "false", "false" },
		{ "[]", "[]" },
		{ "[1, \"x\", [true]]", "[1, \"x\", [true]]" },
		{ "{}", "{}" },
		{ "{\"a\": 1, \"b\": \"x\"}", "{ a = 1, b = \"x\" }" },
		{ "{\"a b\": {\"c\": []}, \"\": 0, \"d.e\": 1}", "{ \"a b\" = { c = [] }, \"\" = 0, \"d.e\" = 1 }" },
	};
	size_t i;
	char *s;
	json_t *v;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		v = json_loads(cases[i].json, JSON_DECODE_ANY, NULL);
		assert_non_null(v);
		s = toml_format_value(v);
		assert_non_null(s);
		assert_string_equal(s, cases[i].toml);
		free(s);
		json_decref(v);
	}
	assert_null(toml_format_value(json_null()));
	assert_null(toml_format_value(NULL));
	v = json_pack("[n]");
	assert_null(toml_format_value(v));
	json_decref(v);
	v = json_stringn("a\0b", 3);
	assert_null(toml_format_value(v));
	json_decref(v);
}

/* format_value then parse must give the same JSON back. */
static void check_roundtrip(json_t *v)
{
	char *s = toml_format_value(v), *doc;
	json_t *back;

	assert_non_null(s);
	assert_true(asprintf(&doc, "x = %s\n", s) > 0);
	back = parse_ok(doc);
	if (!json_equal(json_object_get(back, "x"), v))
		fail_msg("round trip changed %s", doc);
	json_decref(back);
	free(doc);
	free(s);
	json_decref(v);
}

static void test_roundtrip(void **state)
{
	static const double reals[] = { 0.0, -0.0, 0.1, 1.0 / 3, 2.5, -1e-300, 1e308, 4.9e-324, 123456789.125 };
	static const char *const strs[] = { "", "plain", "q\"uote", "back\\slash", "nl\nand\ttab\r",
					    "\x01\x02\x1b\x7f", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
					    "# not = a comment", "'single'" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof reals / sizeof reals[0]; i++)
		check_roundtrip(json_real(reals[i]));
	for (i = 0; i < sizeof strs / sizeof strs[0]; i++)
		check_roundtrip(json_string(strs[i]));
	check_roundtrip(json_integer(0));
	check_roundtrip(json_integer(INT64_MAX));
	check_roundtrip(json_integer(INT64_MIN));
	check_roundtrip(json_true());
	check_roundtrip(json_false());
	check_roundtrip(json_loads("[[], {}, [1, [2, [3]]], {\"a\": {\"b\": {\"c\": [1.5, \"x\"]}}}]", 0, NULL));
	check_roundtrip(json_loads("{\"k e y\": 1, \"\": \"\", \"a.b\": [true, false], \"1\": {}}", 0, NULL));
}

static void test_set_replace(void **state)
{
	static const char doc[] =
		"# allox config\n"
		"\n"
		"[connection]\n"
		"domain = \"old.example\"   # the server\n"
		"port=1\n"
		"\n"
		"  # tail comment\n"
		"[ui]\n"
		"theme = 'dark' # keep\n";

	(void)state;
	check_set(doc, "connection.domain", json_string("new.example"),
		  "# allox config\n"
		  "\n"
		  "[connection]\n"
		  "domain = \"new.example\"   # the server\n"
		  "port=1\n"
		  "\n"
		  "  # tail comment\n"
		  "[ui]\n"
		  "theme = 'dark' # keep\n");
	check_set(doc, "connection.port", json_integer(8080),
		  "# allox config\n"
		  "\n"
		  "[connection]\n"
		  "domain = \"old.example\"   # the server\n"
		  "port=8080\n"
		  "\n"
		  "  # tail comment\n"
		  "[ui]\n"
		  "theme = 'dark' # keep\n");
	check_set(doc, "ui.theme", json_pack("{s:b,s:[i,f]}", "x", 1, "y", 1, 2.5),
		  "# allox config\n"
		  "\n"
		  "[connection]\n"
		  "domain = \"old.example\"   # the server\n"
		  "port=1\n"
		  "\n"
		  "  # tail comment\n"
		  "[ui]\n"
		  "theme = { x = true, y = [1, 2.5] } # keep\n");
	/* Dotted keys, quoted keys and inline tables are all found in place. */
	check_set("a.b.c = 1 # x\n", "a.b.c", json_integer(2), "a.b.c = 2 # x\n");
	check_set("[a]\nb . \"c d\" = 1\n", "a.b.\"c d\"", json_true(), "[a]\nb . \"c d\" = true\n");
	check_set("[a]\nb = { c = 1, d = 2 }\n", "a.b.d", json_string("x"), "[a]\nb = { c = 1, d = \"x\" }\n");
	check_set("t = { u = { v = 1 } }\n", "t.u.v", json_integer(5), "t = { u = { v = 5 } }\n");
	check_set("[a]\nb = 1", "a.b", json_integer(3), "[a]\nb = 3");
	check_set("[a]\r\nb = 1\r\n", "a.b", json_integer(3), "[a]\r\nb = 3\r\n");
	check_set("\xef\xbb\xbf[a]\nb = 1\n", "a.b", json_integer(3), "\xef\xbb\xbf[a]\nb = 3\n");
}

static void test_set_multiline_array(void **state)
{
	(void)state;
	check_set("[a]\n"
		  "list = [\n"
		  "  1, # one\n"
		  "  2,\n"
		  "] # after\n"
		  "next = true\n",
		  "a.list", json_pack("[s,s]", "x", "y"),
		  "[a]\n"
		  "list = [\"x\", \"y\"] # after\n"
		  "next = true\n");
	/* Appending after a table whose last value spans lines. */
	check_set("[a]\n"
		  "list = [\n"
		  "  1,\n"
		  "]\n"
		  "\n"
		  "[b]\n",
		  "a.new", json_integer(1),
		  "[a]\n"
		  "list = [\n"
		  "  1,\n"
		  "]\n"
		  "new = 1\n"
		  "\n"
		  "[b]\n");
}

static void test_set_append(void **state)
{
	(void)state;
	/* Right after the table's last key, before its trailing comments. */
	check_set("[connection]\n"
		  "domain = \"x\" # c\n"
		  "# about port\n"
		  "port = 1\n"
		  "\n"
		  "# next section\n"
		  "[ui]\n"
		  "theme = \"dark\"\n",
		  "connection.token", json_string("t"),
		  "[connection]\n"
		  "domain = \"x\" # c\n"
		  "# about port\n"
		  "port = 1\n"
		  "token = \"t\"\n"
		  "\n"
		  "# next section\n"
		  "[ui]\n"
		  "theme = \"dark\"\n");
	/* An empty table: right after its header. */
	check_set("[a] # first\n\n[b]\nx = 1\n", "a.k", json_integer(1), "[a] # first\nk = 1\n\n[b]\nx = 1\n");
	/* Last table, no trailing newline. */
	check_set("[a]\nx = 1", "a.y", json_integer(2), "[a]\nx = 1\ny = 2\n");
	check_set("[a]", "a.y", json_integer(2), "[a]\ny = 2\n");
	check_set("[a]\nx = 1 # c", "a.y", json_integer(2), "[a]\nx = 1 # c\ny = 2\n");
	/* Keys that need quotes are written quoted. */
	check_set("[a]\n", "a.\"my key\"", json_integer(1), "[a]\n\"my key\" = 1\n");
	check_set("[a]\n", "a.'x.y'", json_integer(1), "[a]\n\"x.y\" = 1\n");
	check_set("[\"s p\"]\nx = 1\n", "\"s p\".y", json_integer(1), "[\"s p\"]\nx = 1\ny = 1\n");
	/* CRLF documents get CRLF lines. */
	check_set("[a]\r\nx = 1\r\n[b]\r\n", "a.y", json_integer(2), "[a]\r\nx = 1\r\ny = 2\r\n[b]\r\n");
	check_set("x = 1\r\n", "n.y", json_integer(2), "x = 1\r\n\r\n[n]\r\ny = 2\r\n");
}

static void test_set_commented_out(void **state)
{
	(void)state;
	check_set("[connection]\n# domain = \"example.com\"\n\n[ui]\n", "connection.domain", json_string("x"),
		  "[connection]\n# domain = \"example.com\"\ndomain = \"x\"\n\n[ui]\n");
	check_set("[c]\na = 1\n#domain=\"e\"\n# other = 1\n", "c.domain", json_string("x"),
		  "[c]\na = 1\n#domain=\"e\"\ndomain = \"x\"\n# other = 1\n");
	/* Other comments do not move the insertion point. */
	check_set("[c]\na = 1\n# domains are great\n", "c.domain", json_string("x"),
		  "[c]\na = 1\ndomain = \"x\"\n# domains are great\n");
}

static void test_set_new_table(void **state)
{
	(void)state;
	check_set("top = 1\n", "connection.domain", json_string("d"),
		  "top = 1\n\n[connection]\ndomain = \"d\"\n");
	check_set("top = 1", "a.b.c", json_integer(1), "top = 1\n\n[a.b]\nc = 1\n");
	check_set("[x]\ny = 1\n\n", "a.b", json_integer(1), "[x]\ny = 1\n\n[a]\nb = 1\n");
	check_set("# only a comment\n", "a.\"q q\".b", json_integer(1), "# only a comment\n\n[a.\"q q\"]\nb = 1\n");
	/* [a.b] exists, [a] only implicitly. */
	check_set("[a.b]\nx = 1\n", "a.y", json_integer(2), "[a.b]\nx = 1\n\n[a]\ny = 2\n");
	/* Below an existing table, and below a dotted-key table. */
	check_set("[a]\nx = 1\n", "a.b.c", json_integer(2), "[a]\nx = 1\n\n[a.b]\nc = 2\n");
	check_set("a.x = 1\n", "a.b.c", json_integer(2), "a.x = 1\n\n[a.b]\nc = 2\n");
}

static void test_set_missing_file(void **state)
{
	(void)state;
	check_set("", "connection.domain", json_string("d"), "[connection]\ndomain = \"d\"\n");
	check_set(NULL, "a.b", json_integer(1), "[a]\nb = 1\n");
	check_set("\n", "a.b", json_integer(1), "\n[a]\nb = 1\n");
}

static void test_set_dotted(void **state)
{
	(void)state;
	/* A table made by dotted keys grows with the same prefix. */
	check_set("a.x = 1\na.y = 2\nz = 3\n", "a.n", json_integer(9), "a.x = 1\na.y = 2\na.n = 9\nz = 3\n");
	check_set("[s]\nt.u.v = 1\nw = 2\n", "s.t.u.n", json_true(), "[s]\nt.u.v = 1\nt.u.n = true\nw = 2\n");
	check_set("[s]\nt.u.v = 1\n", "s.t.n", json_true(), "[s]\nt.u.v = 1\nt.n = true\n");
	/* Inline tables are closed, so the key goes inside the braces. */
	check_set("a = { x = 1 } # c\n", "a.y", json_integer(2), "a = { x = 1, y = 2 } # c\n");
	check_set("a = {}\n", "a.y", json_integer(2), "a = { y = 2 }\n");
	check_set("a = { }\n", "a.y", json_integer(2), "a = { y = 2 }\n");
	check_set("a = { b = { c = 1 } }\n", "a.b.d.e", json_integer(2), "a = { b = { c = 1, d.e = 2 } }\n");
	check_set("[t]\na = { b.c = 1 }\n", "t.a.b.d", json_integer(2), "[t]\na = { b.c = 1, b.d = 2 }\n");
}

static void test_set_errors(void **state)
{
	static const char *const bad_keys[] = { "", "a", "a.", ".a", "a..b", "a.b c", "a.\"b", "a.b=" };
	ax_error err;
	char *out = (char *)1;
	json_t *one = json_integer(1);
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad_keys / sizeof bad_keys[0]; i++) {
		assert_int_equal(toml_set("", 0, bad_keys[i], one, &out, &err), -1);
		assert_null(out);
		assert_int_equal(err.exit_code, AX_EXIT_USAGE);
	}
	assert_int_equal(toml_set("", 0, "a", one, &out, &err), -1);
	assert_string_equal(err.message, "invalid key 'a'");
	assert_int_equal(toml_set("a = \"s\"\n", 8, "a.b", one, &out, &err), -1);
	assert_string_equal(err.message, "cannot set 'a.b': parent is not a table");
	assert_int_equal(toml_set("a = [{b = 1}]\n", 14, "a.b.c", one, &out, &err), -1);
	assert_string_equal(err.message, "cannot set 'a.b.c': parent is not a table");
	assert_int_equal(toml_set("[a.b]\n", 6, "a.b", one, &out, &err), -1);
	assert_string_equal(err.message, "cannot set 'a.b': it is a table");
	assert_int_equal(toml_set("a = 1\n", 6, "a.b", json_null(), &out, &err), -1);
	assert_string_equal(err.message, "cannot set 'a.b': value cannot be written as TOML");
	assert_int_equal(toml_set("a = = 1\n", 8, "a.b", one, &out, &err), -1);
	assert_string_equal(err.message, "1:5: expected value");
	assert_int_equal(err.code, AX_CODE_CONFIG);
	json_decref(one);
}

/* xorshift64*: deterministic across platforms, so failures reproduce. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

static const char *const seeds[] = {
	"# allox\ntitle = \"x\"\n\n[connection]\ndomain = \"a.example\" # c\nport = 8080\n" /* NOLINT(bugprone-suspicious-missing-comma): one seed, two lines */
	"tls = true\nratio = 0.5\n[connection.retry]\nmax = 3\n\n[ui]\ntheme = 'dark'\n",
	"a.b.c = 1\na.b.d = [1, 2,\n  3, # x\n]\nt = { x = 1, y = { z = \"w\" } }\n[s.u]\nv = -0x1F\n",
	"[a]\nlist = [\"x\", 'y', [1.5e3, -2], {k = \"v\"}]\nesc = \"\\u00e9\\n\\t\\\"\"\n[b.c]\n\"q k\" = 0o17\n",
	"[connection]\n# domain = \"x\"\n\n[other]\nk = 1_000\n",
	"",
};

static const char *const set_keys[] = { "connection.domain", "a.b.e", "a.list", "new.key", "t.y.q", "s.u.v", "b.c.n" };

static int msg_ok(const char *m)
{
	const char *p = m;

	if (*p < '0' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p++ != ':' || *p < '0' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	return p[0] == ':' && p[1] == ' ' && p[2] && !strchr(p, '\n');
}

/* Follow a dotted key made of bare parts. */
static json_t *lookup(json_t *doc, const char *key)
{
	char part[64];
	const char *dot;

	while (doc && (dot = strchr(key, '.'))) {
		snprintf(part, sizeof part, "%.*s", (int)(dot - key), key);
		doc = json_object_get(doc, part);
		key = dot + 1;
	}
	return json_object_get(doc, key);
}

static size_t mutate(uint64_t *s, char *buf, size_t len, size_t cap)
{
	static const char chars[] = "[]{}=.,\"'#\\\n\r\t ab01_+-:xeu\x00\x80\xc3\xa9\xff";
	int rounds = 1 + (int)(rnd(s) % 4);
	size_t i;

	while (rounds--) {
		switch (rnd(s) % 5) {
		case 0: /* byte flip */
			if (len)
				buf[rnd(s) % len] ^= (char)(1u << (rnd(s) % 8));
			break;
		case 1: /* truncation */
			len = len ? rnd(s) % len : 0;
			break;
		case 2: /* insertion of a syntax byte */
			if (len + 1 < cap) {
				i = len ? rnd(s) % (len + 1) : 0;
				memmove(buf + i + 1, buf + i, len - i);
				buf[i] = chars[rnd(s) % (sizeof chars - 1)];
				len++;
			}
			break;
		case 3: /* replacement */
			if (len)
				buf[rnd(s) % len] = chars[rnd(s) % (sizeof chars - 1)];
			break;
		default: /* deletion */
			if (len) {
				i = rnd(s) % len;
				memmove(buf + i, buf + i + 1, len - i - 1);
				len--;
			}
			break;
		}
	}
	return len;
}

static void test_random(void **state)
{
	uint64_t s = 0x5eed2024u;
	char buf[1024];
	int iter, ok = 0, sets = 0;

	(void)state;
	for (iter = 0; iter < 20000; iter++) {
		const char *seed = seeds[rnd(&s) % (sizeof seeds / sizeof seeds[0])];
		const char *key = set_keys[rnd(&s) % (sizeof set_keys / sizeof set_keys[0])];
		size_t len;
		char *copy, *out = NULL;
		json_t *v = NULL, *val, *back;
		ax_error err;

		/* The parser takes a length, not a C string. */
		memcpy(buf, seed, strlen(seed)); /* NOLINT(bugprone-not-null-terminated-result) */
		len = mutate(&s, buf, strlen(seed), sizeof buf);
		/* An exact-size heap copy lets ASan/valgrind catch reads past LEN. */
		copy = malloc(len ? len : 1);
		memcpy(copy, buf, len);
		if (toml_parse(copy, len, &v, &err)) {
			assert_null(v);
			if (!msg_ok(err.message))
				fail_msg("bad message '%s'", err.message);
			free(copy);
			continue;
		}
		ok++;
		json_decref(v);
		val = iter % 3 ? json_integer(iter) : json_pack("{s:[s,f]}", "k", "v\n", 0.25);
		if (toml_set(copy, len, key, val, &out, &err) == 0) {
			sets++;
			if (toml_parse(out, strlen(out), &back, &err))
				fail_msg("set %s gave a broken document: %s\n%s", key, err.message, out);
			if (!json_equal(lookup(back, key), val))
				fail_msg("set %s did not stick:\n%s", key, out);
			json_decref(back);
		} else if (!strstr(err.message, "parent is not a table") && !strstr(err.message, "it is a table")) {
			fail_msg("set %s failed: %s\n%.*s", key, err.message, (int)len, copy);
		}
		json_decref(val);
		free(out);
		free(copy);
	}
	/* The mutations must leave enough valid documents to mean something. */
	assert_true(ok > 2000);
	assert_true(sets > 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_basic),
		cmocka_unit_test(test_parse_keys),
		cmocka_unit_test(test_parse_tables),
		cmocka_unit_test(test_parse_numbers),
		cmocka_unit_test(test_parse_strings),
		cmocka_unit_test(test_parse_arrays),
		cmocka_unit_test(test_parse_inline),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_format_value),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_set_replace),
		cmocka_unit_test(test_set_multiline_array),
		cmocka_unit_test(test_set_append),
		cmocka_unit_test(test_set_commented_out),
		cmocka_unit_test(test_set_new_table),
		cmocka_unit_test(test_set_missing_file),
		cmocka_unit_test(test_set_dotted),
		cmocka_unit_test(test_set_errors),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
