/*
 * libFuzzer target for the TOML reader/editor:
 *   clang -g -fsanitize=fuzzer,address -Isrc/lib src/lib/toml.c src/lib/ax_error.c \
 *         tests/unit/fuzz_toml.c $(pkg-config --cflags --libs jansson)
 * Any error message must be "LINE:COLUMN: reason"; anything that parses must
 * take a toml_set and still parse with the value in place, and every value
 * must survive toml_format_value and a parse unchanged.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/toml.h"

static const char *const keys[] = { "a.b", "connection.domain", "a.b.c", "\"q k\".x", "t.u.v.w" };

static void check_message(const char *m)
{
	int line, col, n = 0;

	if (sscanf(m, "%d:%d: %n", &line, &col, &n) != 2 || n == 0 || line < 1 || col < 1 ||
	    strchr(m, '\n'))
		abort();
}

static void check_set(const char *text, size_t len, const char *key, json_t *value)
{
	ax_error err;
	char *out = NULL;
	json_t *doc;

	if (toml_set(text, len, key, value, &out, &err)) {
		/* Only documents that block the key may refuse it. */
		if (!strstr(err.message, "parent is not a table") && !strstr(err.message, "it is a table"))
			abort();
		return;
	}
	if (toml_parse(out, strlen(out), &doc, &err))
		abort();
	json_decref(doc);
	free(out);
}

/* Every value read must format to text that reads back the same. */
static void check_format(json_t *doc)
{
	const char *k;
	json_t *v, *back;
	ax_error err;
	char *s, *line;

	json_object_foreach(doc, k, v) {
		s = toml_format_value(v);
		if (!s)
			abort();
		line = malloc(strlen(s) + 6);
		if (!line)
			abort();
		sprintf(line, "x = %s\n", s);
		/* "x = ..." nests the value exactly as deep as it was. */
		if (toml_parse(line, strlen(line), &back, &err) ||
		    !json_equal(json_object_get(back, "x"), v))
			abort();
		json_decref(back);
		free(line);
		free(s);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ax_error err;
	json_t *doc = NULL, *val;

	if (toml_parse((const char *)data, size, &doc, &err)) {
		check_message(err.message);
		return 0;
	}
	check_format(doc);
	json_decref(doc);
	val = json_pack("{s:[i,s]}", "k", (int)size, "v\"\n");
	check_set((const char *)data, size, keys[size % (sizeof keys / sizeof keys[0])], val);
	json_decref(val);
	return 0;
}
