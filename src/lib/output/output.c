/*
 * ax_render() entry point plus the small formats (json, raw) and the helpers
 * the table and yaml renderers share (see output_internal.h).
 *
 * Every byte goes through axo_put_n() so the first write error (and its
 * errno) is remembered; errno alone would be clobbered by later library
 * calls before we get to report it.
 */
#include "lib/output/output_internal.h"

#include <errno.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

/* ---- low-level output ---------------------------------------------------- */

void axo_put_n(ax_out *c, const char *s, size_t n)
{
	if (c->werr || n == 0)
		return;
	errno = 0;
	if (fwrite(s, 1, n, c->out) != n)
		c->werr = errno ? errno : EIO;
}

void axo_put(ax_out *c, const char *s)
{
	axo_put_n(c, s, strlen(s));
}

static int finish(ax_out *c, ax_error *err)
{
	errno = 0;
	if (fflush(c->out) != 0 && !c->werr)
		c->werr = errno ? errno : EIO;
	if (!c->werr && ferror(c->out))
		c->werr = EIO;
	if (c->werr)
		return ax_fail(err, AX_CODE_IO, "cannot write output: %s",
			       strerror(c->werr));
	if (c->oom)
		return ax_fail(err, AX_CODE_NOMEM, "out of memory while rendering output");
	return 0;
}

/* ---- value text ----------------------------------------------------------- */

/* Shortest text that reads back as the same double, always with a '.' so
 * YAML 1.1 and 1.2 readers alike take it as a float, not an int or string. */
void axo_fmt_real(double d, char *buf, size_t size)
{
	const char *dp = localeconv()->decimal_point;
	char *e;

	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	/* %g follows LC_NUMERIC, but data formats want '.' */
	if (dp && dp[0] && dp[0] != '.' && !dp[1] && (e = strchr(buf, dp[0])))
		*e = '.';
	if (!strchr(buf, '.') && !strchr(buf, 'n') && !strchr(buf, 'N')) {
		size_t at = strcspn(buf, "eE"), n = strlen(buf);
		if (n + 3 <= size) {
			memmove(buf + at + 2, buf + at, n - at + 1);
			buf[at] = '.';
			buf[at + 1] = '0';
		}
	}
}

char *axo_strdup(ax_out *c, const char *s)
{
	char *d = strdup(s);
	if (!d)
		c->oom = true;
	return d;
}

char *axo_value_text(ax_out *c, const json_t *v, bool for_humans)
{
	/* jansson prints 17 significant digits (0.1 as 0.10000000000000001);
	 * 15 reads better and is only lossy beyond what a table should show. */
	size_t real_prec = for_humans ? JSON_REAL_PRECISION(15) : 0;
	char buf[64], *s;

	switch (json_typeof(v)) {
	case JSON_STRING:
		return axo_strdup(c, json_string_value(v));
	case JSON_INTEGER:
		snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return axo_strdup(c, buf);
	case JSON_REAL:
		axo_fmt_real(json_real_value(v), buf, sizeof buf);
		return axo_strdup(c, buf);
	case JSON_TRUE:
		return axo_strdup(c, "true");
	case JSON_FALSE:
		return axo_strdup(c, "false");
	case JSON_NULL:
		return NULL;
	default:
		s = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY | real_prec);
		if (!s)
			c->oom = true;
		return s;
	}
}

bool axo_is_rows(const json_t *data)
{
	size_t i;
	json_t *v;

	if (!json_is_array(data) || json_array_size(data) == 0)
		return false;
	json_array_foreach(data, i, v)
		if (!json_is_object(v))
			return false;
	return true;
}

const char **axo_row_columns(ax_out *c, const json_t *rows, const ax_view *view,
			     size_t *ncols)
{
	const json_t *first = json_array_get(rows, 0);
	const char **cols, *k;
	size_t n = 0;
	json_t *v;

	if (view->columns) {
		while (view->columns[n])
			n++;
	} else {
		n = json_object_size(first);
	}
	cols = calloc(n + 1, sizeof *cols);
	if (!cols) {
		c->oom = true;
		*ncols = 0;
		return NULL;
	}
	if (view->columns) {
		memcpy(cols, view->columns, n * sizeof *cols);
	} else {
		n = 0;
		json_object_foreach((json_t *)first, k, v)
			cols[n++] = k;
	}
	*ncols = n;
	return cols;
}

/* ---- raw ------------------------------------------------------------------ */

/* Line-oriented raw output promises one line per value (per row with TABs
 * between fields), so line breaks and TABs inside strings become spaces;
 * only a bare string is printed verbatim. */
static void raw_value(ax_out *c, const json_t *v, bool one_line)
{
	const char *str;
	size_t n, start = 0;
	char *s;

	if (!v || json_is_null(v))
		return;
	if (json_is_string(v)) {
		str = json_string_value(v);
		n = json_string_length(v);
		for (size_t i = 0; one_line && i < n; i++) {
			if (str[i] == '\n' || str[i] == '\r' || str[i] == '\t') {
				axo_put_n(c, str + start, i - start);
				axo_put(c, " ");
				start = i + 1;
			}
		}
		axo_put_n(c, str + start, n - start);
		return;
	}
	s = axo_value_text(c, v, false);
	if (s)
		axo_put(c, s);
	free(s);
}

static void render_raw(ax_out *c, const json_t *data, const ax_view *view)
{
	const char *k;
	size_t i, r, ncols;
	json_t *v;

	if (axo_is_rows(data)) {
		const char **keys = axo_row_columns(c, data, view, &ncols);
		for (r = 0; keys && r < json_array_size(data); r++) {
			for (i = 0; i < ncols; i++) {
				if (i)
					axo_put(c, "\t");
				raw_value(c, json_object_get(json_array_get(data, r), keys[i]), true);
			}
			axo_put(c, "\n");
		}
		free(keys);
	} else if (json_is_array(data)) {
		json_array_foreach(data, i, v) {
			raw_value(c, v, true);
			axo_put(c, "\n");
		}
	} else if (json_is_object(data)) {
		json_object_foreach((json_t *)data, k, v) {
			raw_value(c, v, true);
			axo_put(c, "\n");
		}
	} else {
		raw_value(c, data, false);
		if (!json_is_string(data))
			axo_put(c, "\n");
	}
}

/* ---- json ----------------------------------------------------------------- */

static int json_write(const char *buf, size_t size, void *data)
{
	ax_out *c = data;

	axo_put_n(c, buf, size);
	return c->werr ? -1 : 0;
}

/* The fewest significant digits (15..17) at which every real in DATA reads
 * back exactly: 0.03 prints as 0.03, not 0.029999999999999999, and nothing
 * is ever rounded away. */
static int real_precision(const json_t *data, int p)
{
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_real(data)) {
		double d = json_real_value(data);
		char buf[40];

		for (; p < 17; p++) {
			snprintf(buf, sizeof buf, "%.*g", p, d);
			if (strtod(buf, NULL) == d)
				break;
		}
		return p;
	}
	if (json_is_array(data))
		json_array_foreach((json_t *)data, i, v)
			p = real_precision(v, p);
	if (json_is_object(data))
		json_object_foreach((json_t *)data, key, v)
			p = real_precision(v, p);
	return p;
}

static void render_json(ax_out *c, const json_t *data)
{
	/* Through our writer so errno is captured. */
	if (json_dump_callback(data, json_write, c,
			       JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY |
				       JSON_REAL_PRECISION(real_precision(data, 15))) == 0)
		axo_put(c, "\n");
	else if (!c->werr)
		c->oom = true;
}

/* ---- public --------------------------------------------------------------- */

static const struct {
	ax_format f;
	const char *name;
} format_names[] = {
	{ AX_FMT_TABLE, "table" },
	{ AX_FMT_JSON, "json" },
	{ AX_FMT_YAML, "yaml" },
	{ AX_FMT_RAW, "raw" },
};

ax_format ax_format_from_name(const char *name)
{
	for (size_t i = 0; name && i < sizeof format_names / sizeof format_names[0]; i++)
		if (strcmp(name, format_names[i].name) == 0)
			return format_names[i].f;
	return 0;
}

const char *ax_format_name(ax_format f)
{
	for (size_t i = 0; i < sizeof format_names / sizeof format_names[0]; i++)
		if (format_names[i].f == f)
			return format_names[i].name;
	return "unknown";
}

int ax_render(FILE *out, const json_t *data, const ax_view *view,
	      const ax_render_opts *opts, ax_error *err)
{
	static const ax_render_opts default_opts = { AX_FMT_TABLE, false, false, 0, false };
	static const ax_view no_view = { NULL, NULL };
	ax_out c = { out, opts ? opts : &default_opts, 0, false };

	if (!view)
		view = &no_view;
	if (!data)
		data = json_null();

	switch (c.opts->format) {
	case AX_FMT_TABLE:
		axo_render_table(&c, data, view);
		break;
	case AX_FMT_JSON:
		render_json(&c, data);
		break;
	case AX_FMT_YAML:
		if (axo_render_yaml(&c, data, err) < 0)
			return -1;
		break;
	case AX_FMT_RAW:
		render_raw(&c, data, view);
		break;
	default:
		return ax_fail(err, AX_CODE_INTERNAL, "unknown output format %d",
			       (int)c.opts->format);
	}
	return finish(&c, err);
}

