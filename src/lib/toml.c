/*
 * A small, strict reader and in-place editor for the TOML subset in toml.h.
 *
 * Recursive descent over a byte buffer. Every table and array is attached to
 * its parent before its contents are parsed, so toml_set can recognise the
 * table it is after by pointer while the parse runs, and note where that
 * table's text lives.
 */
/* newlocale, uselocale and strdup are POSIX 2008, not C11. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "lib/toml.h"

#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keeps recursion (ours and jansson's) far from the stack limit. */
#define MAX_DEPTH 64

/* How a table came to be: TOML lets each kind be reopened only in one way.
 * Tables without a kind (0) are inline ones, closed for good. */
enum { T_IMPLICIT = 1, T_HEADER = 2, T_DOTTED = 4 };

struct buf {
	char *p;
	size_t n, cap;
	int oom;
};

/* What toml_set learns about its key while the document is parsed. */
struct target {
	char **parts;			/* table path, then the key name */
	int n;
	const char *name_text;		/* the key name as we write it */
	size_t vstart, vend;		/* the existing value's text, if vend */
	size_t ins, pre_start, pre_end;	/* where a new line goes, if ins; its dotted prefix */
	int inl_depth;			/* deepest inline table on the path, or 0 */
	size_t inl_pos;			/* after its '{' or its last value */
};

struct parser {
	const char *s;
	size_t len, pos, bom;
	ax_error *err;
	json_t *root;
	struct buf key, str;
	json_t *meta;
	struct target *t;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
	size_t cap = b->cap ? b->cap : 64;
	char *q;

	if (b->oom)
		return;
	if (b->n + n + 1 > b->cap) {
		while (cap < b->n + n + 1)
			cap *= 2;
		q = realloc(b->p, cap);
		if (!q) {
			b->oom = 1;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

/* Append a NULL-terminated list of strings; see buf_cat. */
static void buf_cat_(struct buf *b, ...)
{
	const char *s;
	va_list ap;

	va_start(ap, b);
	while ((s = va_arg(ap, const char *)))
		buf_add(b, s, strlen(s));
	va_end(ap);
}

#define buf_cat(b, ...) buf_cat_(b, __VA_ARGS__, (const char *)0)

static int peek(const struct parser *p, size_t off)
{
	return p->pos + off < p->len ? (unsigned char)p->s[p->pos + off] : -1;
}

static int fail(struct parser *p, size_t at, const char *why)
{
	int line = 1, col = 1;

	for (size_t i = p->bom; i < at && i < p->len; i++) {
		if (p->s[i] == '\n') {
			line++;
			col = 1;
		} else {
			/* Columns count characters, not bytes. */
			col += ((unsigned char)p->s[i] & 0xc0) != 0x80;
		}
	}
	return ax_fail(p->err, AX_CODE_CONFIG, "%d:%d: %s", line, col, why);
}

/* Get (KIND < 0) or set the kind of table OBJ. Kinds live beside the tree,
 * keyed by address; jansson's hash keeps that cheap for hostile input. */
static int meta(struct parser *p, const json_t *obj, int kind)
{
	char k[32];

	snprintf(k, sizeof k, "%p", (const void *)obj);
	if (kind < 0)
		return (int)json_integer_value(json_object_get(p->meta, k));
	return json_object_set_new(p->meta, k, json_integer(kind));
}

/* Length of the well-formed UTF-8 sequence at S, or 0. */
static size_t utf8_len(const unsigned char *s, size_t avail)
{
	size_t i, len = s[0] < 0x80 ? 1 : s[0] < 0xc2 ? 0 : s[0] < 0xe0 ? 2 :
			s[0] < 0xf0 ? 3 : s[0] < 0xf5 ? 4 : 0;
	unsigned long cp = s[0] & (0x7f >> len);

	if (len > avail)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* May the character at pos appear in a string or comment? *N is its length. */
static int check_char(struct parser *p, size_t *n)
{
	int c = peek(p, 0);

	if (c == 0)
		return fail(p, p->pos, "nul byte not allowed");
	if ((c < 0x20 && c != '\t') || c == 0x7f)
		return fail(p, p->pos, "control character not allowed");
	*n = utf8_len((const unsigned char *)p->s + p->pos, p->len - p->pos);
	return *n ? 0 : fail(p, p->pos, "invalid utf-8");
}

static void skip_ws(struct parser *p)
{
	while (peek(p, 0) == ' ' || peek(p, 0) == '\t')
		p->pos++;
}

static int is_newline(const struct parser *p)
{
	return peek(p, 0) == '\n' || (peek(p, 0) == '\r' && peek(p, 1) == '\n');
}

static int at_eol(const struct parser *p)
{
	return peek(p, 0) < 0 || peek(p, 0) == '\n' || peek(p, 0) == '\r';
}

static int comment(struct parser *p)
{
	size_t n;

	for (p->pos++; p->pos < p->len && !is_newline(p); p->pos += n)
		if (check_char(p, &n))
			return -1;
	return 0;
}

/* Whitespace, newlines and comments, as allowed between array elements. */
static int skip_space(struct parser *p)
{
	for (;;) {
		if (peek(p, 0) == ' ' || peek(p, 0) == '\t' || peek(p, 0) == '\n')
			p->pos++;
		else if (is_newline(p))
			p->pos += 2;
		else if (peek(p, 0) != '#')
			return 0;
		else if (comment(p))
			return -1;
	}
}

static int end_line(struct parser *p, const char *why)
{
	skip_ws(p);
	if (peek(p, 0) == '#' && comment(p))
		return -1;
	if (peek(p, 0) < 0)
		return 0;
	if (!is_newline(p))
		return fail(p, p->pos, why);
	p->pos += peek(p, 0) == '\r' ? 2 : 1;
	return 0;
}

static int is_bare(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
		return (c | 0x20) - 'a' + 10;
	return 99;
}

static int escape(struct parser *p, struct buf *b)
{
	static const char from[] = "btnfr\"\\", to[] = "\b\t\n\f\r\"\\";
	size_t at = p->pos, i, n, len = peek(p, 1) == 'u' ? 4 : 8;
	const char *e = peek(p, 1) > 0 ? strchr(from, peek(p, 1)) : NULL;
	unsigned long cp = 0;
	char u[4];

	if (e) {
		buf_add(b, &to[e - from], 1);
		p->pos += 2;
		return 0;
	}
	if (peek(p, 1) != 'u' && peek(p, 1) != 'U')
		return fail(p, at, "invalid escape");
	for (i = 0; i < len; i++) {
		if (hexval(peek(p, 2 + i)) > 15)
			return fail(p, at, "invalid unicode escape");
		cp = cp << 4 | (unsigned long)hexval(peek(p, 2 + i));
	}
	if (cp == 0)
		return fail(p, at, "nul byte not allowed");
	if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return fail(p, at, "invalid unicode escape");
	n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
	u[0] = (char)(n == 1 ? cp : (0xf00 >> n & 0xff) | cp >> (6 * (n - 1)));
	for (i = 1; i < n; i++)
		u[i] = (char)(0x80 | ((cp >> (6 * (n - 1 - i))) & 0x3f));
	buf_add(b, u, n);
	p->pos += 2 + len;
	return 0;
}

/* A basic or literal string (value or quoted key) at pos, decoded into B. */
static int parse_string(struct parser *p, struct buf *b)
{
	size_t open = p->pos, n = 1;
	int q = peek(p, 0);

	b->n = 0;
	buf_add(b, "", 0);
	if (peek(p, 1) == q && peek(p, 2) == q)
		return fail(p, open, "multi-line strings are not supported");
	for (p->pos++; peek(p, 0) != q; p->pos += n) {
		n = 0;
		if (peek(p, 0) < 0 || is_newline(p))
			return fail(p, open, "unterminated string");
		if (peek(p, 0) == '\\' && q == '"') {
			if (escape(p, b))
				return -1;
		} else if (check_char(p, &n)) {
			return -1;
		} else {
			buf_add(b, p->s + p->pos, n);
		}
	}
	p->pos++;
	return b->oom ? fail(p, open, "out of memory") : 0;
}

static int parse_key_part(struct parser *p)
{
	size_t at = p->pos;

	if (peek(p, 0) == '"' || peek(p, 0) == '\'')
		return parse_string(p, &p->key);
	while (is_bare(peek(p, 0)))
		p->pos++;
	if (p->pos == at)
		return fail(p, at, "expected key");
	p->key.n = 0;
	buf_add(&p->key, p->s + at, p->pos - at);
	return p->key.oom ? fail(p, at, "out of memory") : 0;
}

/* The table at the first N parts of toml_set's key, or NULL. */
static json_t *resolve(const struct parser *p, int n)
{
	json_t *o = p->root;

	for (int i = 0; i < n && o; i++)
		o = json_object_get(o, p->t->parts[i]);
	return json_is_object(o) ? o : NULL;
}

/* Step *OBJ into its table p->key, creating it if missing, as part of a
 * header path (T_IMPLICIT), its last part (T_HEADER) or a dotted key. */
static int descend(struct parser *p, json_t **obj, int how, size_t at)
{
	json_t *child = json_object_get(*obj, p->key.p);
	int kind = meta(p, child, -1);

	if (!child) {
		child = json_object();
		if (!child || json_object_set_new(*obj, p->key.p, child))
			return fail(p, at, "out of memory");
	} else if (!json_is_object(child)) {
		return fail(p, at, how == T_HEADER ? "duplicate key" : "key is not a table");
	} else if (!kind && how != T_HEADER) {
		return fail(p, at, "cannot extend inline table");
	} else if (!kind || (how == T_HEADER && kind != T_IMPLICIT) ||
		   (how == T_DOTTED && kind != T_DOTTED)) {
		/* A header defines a table once; dotted keys only extend their own. */
		return fail(p, at, "table already defined");
	}
	*obj = child;
	if ((!kind || how == T_HEADER) && meta(p, child, how))
		return fail(p, at, "out of memory");
	return 0;
}

/* Walk *OBJ down a dotted key, making missing tables of kind HOW; the last
 * part is left in p->key and its position in *AT. If PRE is given and
 * toml_set's table lies on the path, *PRE is where the rest of the key
 * (relative to that table) starts. */
static int parse_path(struct parser *p, json_t **obj, int *depth, int how, size_t *at, size_t *pre)
{
	for (;; p->pos++) {
		skip_ws(p);
		if (pre && p->t && *obj == resolve(p, p->t->n - 1))
			*pre = p->pos;
		*at = p->pos;
		if (parse_key_part(p))
			return -1;
		skip_ws(p);
		if (peek(p, 0) != '.')
			return 0;
		if (++*depth > MAX_DEPTH)
			return fail(p, *at, "nesting too deep");
		if (descend(p, obj, how, *at))
			return -1;
	}
}

static int parse_header(struct parser *p, json_t **cur, int *depth)
{
	size_t at = p->pos;

	if (peek(p, 1) == '[')
		return fail(p, at, "arrays of tables are not supported");
	*cur = p->root;
	*depth = 0;
	p->pos++;
	if (parse_path(p, cur, depth, T_IMPLICIT, &at, NULL))
		return -1;
	if (peek(p, 0) != ']')
		return fail(p, p->pos, "expected ']' after table name");
	p->pos++;
	if (++*depth > MAX_DEPTH)
		return fail(p, at, "nesting too deep");
	return descend(p, cur, T_HEADER, at);
}

static int parse_value(struct parser *p, json_t *parent, const char *name, int depth);

/* key = value into OBJ, a table DEPTH levels down; PRE as for parse_path. */
static int parse_keyval(struct parser *p, json_t *obj, int depth, size_t *pre)
{
	struct target *t = p->t;
	size_t at, start;
	int is_target;

	if (parse_path(p, &obj, &depth, T_DOTTED, &at, pre))
		return -1;
	if (peek(p, 0) != '=')
		return fail(p, p->pos, "expected '=' after key");
	p->pos++;
	skip_ws(p);
	if (json_object_get(obj, p->key.p))
		return fail(p, at, "duplicate key");
	is_target = t && !strcmp(p->key.p, t->parts[t->n - 1]) && obj == resolve(p, t->n - 1);
	start = p->pos;
	if (parse_value(p, obj, p->key.p, depth + 1))
		return -1;
	if (is_target) {
		t->vstart = start;
		t->vend = p->pos;
	}
	return 0;
}

/* Digits in BASE with single underscores between them; returns the length. */
static size_t digits(const char *s, int base)
{
	size_t i = 0;

	while (hexval(s[i]) < base)
		i += s[i + 1] == '_' && hexval(s[i + 2]) < base ? 2 : 1;
	return i;
}

static int parse_number(struct parser *p, const char *tok, size_t n, size_t at, json_t **v)
{
	char buf[128], *s = buf;
	size_t i, k;
	int base = 0, is_float = 0;
	unsigned long long u = 0;
	long long ll;
	locale_t c, old = (locale_t)0;
	double d;

	if (n >= sizeof buf)
		goto bad;
	memcpy(buf, tok, n);
	buf[n] = '\0';
	if (strchr(buf, ':') || (digits(buf, 10) == 4 && buf[4] == '-'))
		return fail(p, at, "dates are not supported");
	s += *s == '+' || *s == '-';
	/* jansson refuses non-finite reals, so there is nothing to map them to. */
	if (!strcmp(s, "inf") || !strcmp(s, "nan"))
		return fail(p, at, "inf and nan are not supported");
	if (s == buf && s[0] == '0' && s[1] && strchr("xob", s[1]))
		base = s[1] == 'x' ? 16 : s[1] == 'o' ? 8 : 2;
	i = base ? 2 + digits(s + 2, base) : digits(s, 10);
	if (i == (base ? 2u : 0u) || (!base && s[0] == '0' && i > 1))
		goto bad;
	if (!base && s[i] == '.') {
		if (!(k = digits(s + i + 1, 10)))
			goto bad;
		i += 1 + k;
		is_float = 1;
	}
	if (!base && (s[i] == 'e' || s[i] == 'E')) {
		i += s[i + 1] == '+' || s[i + 1] == '-' ? 2 : 1;
		if (!(k = digits(s + i, 10)))
			goto bad;
		i += k;
		is_float = 1;
	}
	if (s[i])
		goto bad;
	for (i = k = 0; buf[i]; i++)
		if (buf[i] != '_')
			buf[k++] = buf[i];
	buf[k] = '\0';
	errno = 0;
	if (!is_float) {
		u = base ? strtoull(buf + 2, NULL, base) : 0;
		ll = base ? (long long)u : strtoll(buf, NULL, 10);
		if (errno == ERANGE || u > LLONG_MAX)
			return fail(p, at, "integer out of range");
		*v = json_integer(ll);
		return 0;
	}
	/* TOML's decimal point is '.', whatever LC_NUMERIC says. */
	c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (c)
		old = uselocale(c);
	d = strtod(buf, NULL);
	if (c) {
		uselocale(old);
		freelocale(c);
	}
	if (!isfinite(d))
		return fail(p, at, "float out of range");
	*v = json_real(d);
	return 0;
bad:
	return fail(p, at, "invalid number");
}

/* Strings, booleans and numbers. */
static int parse_scalar(struct parser *p, json_t **v)
{
	const char *tok = p->s + p->pos;
	size_t at = p->pos, n = 0;

	if (peek(p, 0) == '"' || peek(p, 0) == '\'') {
		if (parse_string(p, &p->str))
			return -1;
		*v = json_stringn(p->str.p, p->str.n);
		return 0;
	}
	while (at + n < p->len && tok[n] && (is_bare(tok[n]) || strchr(".+:", tok[n])))
		n++;
	p->pos += n;
	if (!n)
		return fail(p, at, "expected value");
	if (n == 4 && !memcmp(tok, "true", 4))
		*v = json_true();
	else if (n == 5 && !memcmp(tok, "false", 5))
		*v = json_false();
	else if (hexval(*tok) < 10 || strchr("+-.", *tok) ||
		 (n == 3 && (!memcmp(tok, "inf", 3) || !memcmp(tok, "nan", 3))))
		return parse_number(p, tok, n, at, v);
	else
		return fail(p, at, "invalid value");
	return 0;
}

static int parse_array(struct parser *p, json_t *arr, int depth)
{
	size_t open = p->pos;

	for (p->pos++;; p->pos++) {
		if (skip_space(p))
			return -1;
		if (peek(p, 0) != ']' && peek(p, 0) >= 0 &&
		    (parse_value(p, arr, NULL, depth + 1) || skip_space(p)))
			return -1;
		if (peek(p, 0) == ']')
			break;
		if (peek(p, 0) < 0)
			return fail(p, open, "unterminated array");
		if (peek(p, 0) != ',')
			return fail(p, p->pos, "expected ',' or ']'");
	}
	p->pos++;
	return 0;
}

static int parse_inline(struct parser *p, json_t *obj, int depth)
{
	struct target *t = p->t;
	size_t open = p->pos, last = p->pos + 1, comma = 0;
	int i;

	for (p->pos++;; comma = p->pos++) {
		skip_ws(p);
		if (peek(p, 0) == '}' && comma)
			return fail(p, comma, "trailing comma in inline table");
		if (peek(p, 0) != '}' && !at_eol(p)) {
			if (parse_keyval(p, obj, depth, NULL))
				return -1;
			last = p->pos;
			skip_ws(p);
		}
		if (peek(p, 0) == '}')
			break;
		/* Inline tables stay on one line. */
		if (at_eol(p))
			return fail(p, open, "unterminated inline table");
		if (peek(p, 0) != ',')
			return fail(p, p->pos, "expected ',' or '}'");
	}
	p->pos++;
	/* toml_set adds its key to the innermost inline table on the path. */
	for (i = t ? t->n - 1 : 0; t && i > t->inl_depth; i--) {
		if (obj == resolve(p, i)) {
			t->inl_depth = i;
			t->inl_pos = last;
			break;
		}
	}
	return 0;
}

/* Parse a value and store it as PARENT[NAME], or append it if NAME is NULL. */
static int parse_value(struct parser *p, json_t *parent, const char *name, int depth)
{
	size_t at = p->pos;
	int c = peek(p, 0);
	json_t *v = NULL;

	if (c == '[' || c == '{') {
		if (depth > MAX_DEPTH)
			return fail(p, at, "nesting too deep");
		v = c == '[' ? json_array() : json_object();
	} else if (parse_scalar(p, &v)) {
		return -1;
	}
	if (!v || (name ? json_object_set_new(parent, name, v) : json_array_append_new(parent, v)))
		return fail(p, at, "out of memory");
	if (c == '[')
		return parse_array(p, v, depth);
	return c == '{' ? parse_inline(p, v, depth) : 0;
}

/* Does the comment at pos read "# NAME = ..."? A disabled setting: the new
 * key goes after it. */
static int commented_key(const struct parser *p)
{
	const char *s = p->s + p->pos, *end = p->s + p->len;
	size_t n = strlen(p->t->name_text);

	while (s < end && (*s == '#' || *s == ' ' || *s == '\t'))
		s++;
	if ((size_t)(end - s) <= n || memcmp(s, p->t->name_text, n) != 0)
		return 0;
	for (s += n; s < end && (*s == ' ' || *s == '\t'); s++)
		;
	return s < end && *s == '=';
}

static int parse_doc(struct parser *p)
{
	struct target *t = p->t;
	json_t *cur = p->root;
	int depth = 0, in_section = 0, hit, c;
	size_t start, pre;

	for (;;) {
		skip_ws(p);
		c = peek(p, 0);
		start = p->pos;
		pre = SIZE_MAX;
		if (c < 0)
			return 0;
		if (c == '[') {
			if (parse_header(p, &cur, &depth))
				return -1;
			in_section = hit = t && cur == resolve(p, t->n - 1);
			if (end_line(p, "unexpected text after table header"))
				return -1;
		} else if (c == '#' || c == '\n' || c == '\r') {
			hit = c == '#' && in_section && commented_key(p);
			if (end_line(p, "expected newline"))
				return -1;
		} else {
			if (parse_keyval(p, cur, depth, &pre) || end_line(p, "unexpected text after value"))
				return -1;
			hit = pre != SIZE_MAX;
		}
		if (hit) {
			t->ins = p->pos;
			t->pre_start = pre == SIZE_MAX ? 0 : start;
			t->pre_end = pre == SIZE_MAX ? 0 : pre;
		}
	}
}

static void parser_free(struct parser *p)
{
	json_decref(p->root);
	free(p->key.p);
	free(p->str.p);
	json_decref(p->meta);
}

static int run(struct parser *p, const char *text, size_t len, struct target *t, ax_error *err)
{
	memset(p, 0, sizeof *p);
	p->s = text ? text : "";
	p->len = text ? len : 0;
	p->err = err;
	p->t = t;
	if (p->len >= 3 && !memcmp(p->s, "\xef\xbb\xbf", 3))
		p->pos = p->bom = 3;
	p->root = json_object();
	p->meta = json_object();
	return p->root && p->meta ? parse_doc(p) : fail(p, 0, "out of memory");
}

int toml_parse(const char *text, size_t len, json_t **out, ax_error *err)
{
	struct parser p;
	int rc = run(&p, text, len, NULL, err);

	*out = rc ? NULL : json_incref(p.root);
	parser_free(&p);
	return rc;
}

static void put_string(struct buf *b, const char *s)
{
	char esc[8];

	buf_add(b, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			snprintf(esc, sizeof esc, "\\%c", c);
		else if (c == '\n' || c == '\t' || c == '\r')
			snprintf(esc, sizeof esc, "\\%c", c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
		else if (c < 0x20 || c == 0x7f)
			snprintf(esc, sizeof esc, "\\u%04X", c);
		else
			snprintf(esc, sizeof esc, "%c", c);
		buf_cat(b, esc);
	}
	buf_add(b, "\"", 1);
}

static void put_key(struct buf *b, const char *k)
{
	const char *s = k;

	while (is_bare((unsigned char)*s))
		s++;
	if (*k && !*s)
		buf_cat(b, k);
	else
		put_string(b, k);
}

static void put_keys(struct buf *b, char **parts, int from, int to)
{
	for (int i = from; i < to; i++) {
		if (i > from)
			buf_add(b, ".", 1);
		put_key(b, parts[i]);
	}
}

/* The shortest text that reads back as the same double, and as a float. */
static void put_real(struct buf *b, double d)
{
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0), old = (locale_t)0;
	char num[40], *e;

	if (c)
		old = uselocale(c);
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(num, sizeof num - 2, "%.*g", prec, d);
		if (strtod(num, NULL) == d)
			break;
	}
	/* %g turns 100 into 1e+02 at low precision; whole numbers read better. */
	e = strchr(num, 'e');
	if (e && e[1] == '+' && atoi(e + 2) < 16)
		snprintf(num, sizeof num - 2, "%.0f", d);
	if (c) {
		uselocale(old);
		freelocale(c);
	}
	if (!strpbrk(num, ".e"))
		strcat(num, ".0");
	buf_cat(b, num);
}

static int put_value(struct buf *b, const json_t *v, int depth)
{
	const char *k, *sep = "";
	char num[32];
	json_t *x;
	size_t i;

	/* Nest no deeper than the parser will read back. */
	if ((json_is_array(v) || json_is_object(v)) && depth > MAX_DEPTH)
		return -1;
	switch (json_typeof(v)) {
	case JSON_STRING:
		/* An embedded NUL could not be read back. */
		if (strlen(json_string_value(v)) != json_string_length(v))
			return -1;
		put_string(b, json_string_value(v));
		return 0;
	case JSON_INTEGER:
		snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		buf_cat(b, num);
		return 0;
	case JSON_REAL:
		put_real(b, json_real_value(v));
		return 0;
	case JSON_TRUE:
	case JSON_FALSE:
		buf_cat(b, json_is_true(v) ? "true" : "false");
		return 0;
	case JSON_ARRAY:
		buf_add(b, "[", 1);
		json_array_foreach(v, i, x) {
			buf_cat(b, sep);
			if (put_value(b, x, depth + 1))
				return -1;
			sep = ", ";
		}
		buf_add(b, "]", 1);
		return 0;
	case JSON_OBJECT:
		buf_add(b, "{", 1);
		json_object_foreach((json_t *)v, k, x) {
			buf_cat(b, *sep ? ", " : " ");
			put_key(b, k);
			buf_cat(b, " = ");
			if (put_value(b, x, depth + 1))
				return -1;
			sep = " ";
		}
		buf_cat(b, sep, "}");
		return 0;
	default:
		return -1;
	}
}

char *toml_format_value(const json_t *value)
{
	struct buf b = { 0 };

	if (!value || put_value(&b, value, 1) || b.oom) {
		free(b.p);
		return NULL;
	}
	return b.p;
}

/* Split KEY, written with TOML key syntax, into T->parts. */
static int split_key(const char *key, struct target *t)
{
	struct parser p = { .s = key, .len = strlen(key) };
	int rc = -1;

	t->parts = calloc(MAX_DEPTH, sizeof *t->parts);
	for (; t->parts && t->n < MAX_DEPTH; p.pos++) {
		skip_ws(&p);
		if (parse_key_part(&p) || !p.key.p || !(t->parts[t->n++] = strdup(p.key.p)))
			break;
		skip_ws(&p);
		if (peek(&p, 0) != '.') {
			rc = p.pos == p.len && t->n >= 2 ? 0 : -1;
			break;
		}
	}
	free(p.key.p);
	free(p.str.p);
	return rc;
}

/* Write the edited document to B; T was filled in by parsing TEXT into P. */
static int edit(struct parser *p, const struct target *t, const char *text, size_t len,
		const char *key, const char *val, struct buf *b)
{
	const char *nl = "\n", *eol = memchr(text, '\n', len);
	json_t *o = p->root, *next;
	int i, k = t->n - 1, frozen = 0, empty = t->inl_depth && text[t->inl_pos - 1] == '{';

	if (eol && eol > text && eol[-1] == '\r')
		nl = "\r\n";
	if (t->vend) {
		buf_add(b, text, t->vstart);
		buf_cat(b, val);
		buf_add(b, text + t->vend, len - t->vend);
		return 0;
	}
	for (i = 0; i < k && (next = json_object_get(o, t->parts[i])); i++, o = next) {
		if (!json_is_object(next))
			return ax_fail(p->err, AX_CODE_CONFIG,
				       "cannot set '%s': parent is not a table", key);
		frozen |= !meta(p, next, -1);
	}
	if (i == k && json_object_get(o, t->parts[k]))
		return ax_fail(p->err, AX_CODE_CONFIG, "cannot set '%s': it is a table", key);
	if (frozen && t->inl_depth) {
		/* Inline tables are closed: the key has to go inside the braces. */
		buf_add(b, text, t->inl_pos);
		buf_cat(b, empty ? " " : ", ");
		put_keys(b, t->parts, t->inl_depth, t->n);
		buf_cat(b, " = ", val, empty && text[t->inl_pos] == '}' ? " " : "");
		buf_add(b, text + t->inl_pos, len - t->inl_pos);
	} else if (i == k && t->ins) {
		buf_add(b, text, t->ins);
		if (t->ins && text[t->ins - 1] != '\n')
			buf_cat(b, nl);
		buf_add(b, text + t->pre_start, t->pre_end - t->pre_start);
		buf_cat(b, t->name_text, " = ", val, nl);
		buf_add(b, text + t->ins, len - t->ins);
	} else {
		/* Missing, or only implied by deeper headers: a block of its own. */
		buf_add(b, text, len);
		if (len && text[len - 1] != '\n')
			buf_cat(b, nl);
		if (b->n > strlen(nl) && b->p[b->n - strlen(nl) - 1] != '\n')
			buf_cat(b, nl);
		buf_add(b, "[", 1);
		put_keys(b, t->parts, 0, k);
		buf_cat(b, "]", nl, t->name_text, " = ", val, nl);
	}
	return b->oom ? ax_fail(p->err, AX_CODE_CONFIG, "out of memory") : 0;
}

int toml_set(const char *text, size_t len, const char *key, const json_t *value, char **out,
	     ax_error *err)
{
	struct buf name = { 0 }, b = { 0 };
	struct target t;
	struct parser p;
	ax_error e;
	json_t *o;
	char *val = NULL;
	int i, rc = -1;

	*out = NULL;
	memset(&t, 0, sizeof t);
	memset(&p, 0, sizeof p);
	if (!key || split_key(key, &t)) {
		ax_fail(err, AX_CODE_USAGE, "invalid key '%s'", key ? key : "");
		goto out;
	}
	val = toml_format_value(value);
	if (!val) {
		ax_fail(err, AX_CODE_CONFIG,
			"cannot set '%s': value cannot be written as TOML", key);
		goto out;
	}
	put_key(&name, t.parts[t.n - 1]);
	t.name_text = name.p ? name.p : "";
	if (!text) {
		text = "";
		len = 0;
	}
	if (run(&p, text, len, &t, err) || edit(&p, &t, text, len, key, val, &b))
		goto out;
	/* The edit is only handed out if it reads back with VALUE at KEY. */
	parser_free(&p);
	memset(&p, 0, sizeof p);
	if (toml_parse(b.p, b.n, &p.root, &e)) {
		ax_fail(err, AX_CODE_CONFIG, "cannot set '%s': %s", key, e.message);
		goto out;
	}
	for (o = p.root, i = 0; i < t.n && o; i++)
		o = json_object_get(o, t.parts[i]);
	if (!o || !json_equal(o, (json_t *)value)) {
		ax_fail(err, AX_CODE_CONFIG, "cannot set '%s': internal error", key);
		goto out;
	}
	*out = b.p;
	b.p = NULL;
	rc = 0;
out:
	parser_free(&p);
	for (i = 0; i < t.n; i++)
		free(t.parts[i]);
	free(t.parts);
	free(name.p);
	free(val);
	free(b.p);
	return rc;
}
