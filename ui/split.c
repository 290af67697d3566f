/* A small POSIX-like word splitter for the allox> command line. */
#include "ui/split.h"

#include <stdlib.h>
#include <string.h>

typedef struct buf {
	char *s;
	size_t len, cap;
} buf;

static int buf_put(buf *b, char c)
{
	if (b->len + 2 > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 32;
		char *s = realloc(b->s, cap);

		if (!s)
			return -1;
		b->s = s;
		b->cap = cap;
	}
	b->s[b->len++] = c;
	b->s[b->len] = '\0';
	return 0;
}

static int push_word(ax_words *w, buf *b)
{
	char **v = realloc(w->v, (size_t)(w->n + 2) * sizeof *v);

	if (!v)
		return -1;
	w->v = v;
	w->v[w->n++] = b->s ? b->s : strdup("");
	w->v[w->n] = NULL;
	b->s = NULL;
	b->len = b->cap = 0;
	return w->v[w->n - 1] ? 0 : -1;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

void ax_words_free(ax_words *w)
{
	int i;

	for (i = 0; w->v && i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	memset(w, 0, sizeof *w);
}

int ax_split_line(const char *line, bool partial, ax_words *out, ax_error *err)
{
	buf b = { NULL, 0, 0 };
	bool in_word = false;
	char quote = 0;
	const char *p;

	memset(out, 0, sizeof *out);
	out->v = calloc(1, sizeof *out->v);
	if (!out->v)
		goto nomem;
	for (p = line; *p; p++) {
		char c = *p;

		if (quote == '\'') {
			if (c == '\'')
				quote = 0;
			else if (buf_put(&b, c) < 0)
				goto nomem;
			continue;
		}
		if (quote == '"') {
			if (c == '"') {
				quote = 0;
				continue;
			}
			if (c == '\\' && p[1] && strchr("$`\"\\\n", p[1])) {
				c = *++p;
				if (c == '\n')
					continue;
			}
			if (buf_put(&b, c) < 0)
				goto nomem;
			continue;
		}
		if (is_blank(c)) {
			if (in_word && push_word(out, &b) < 0)
				goto nomem;
			in_word = false;
			continue;
		}
		if (c == '#' && !in_word)
			break;
		if (c == '\'' || c == '"') {
			quote = c;
			in_word = true; /* "" is a word even when empty */
			continue;
		}
		if (c == '\\') {
			if (!p[1]) {
				if (!partial) {
					free(b.s);
					ax_words_free(out);
					return ax_fail(err, AX_CODE_USAGE, "the line ends in a backslash");
				}
				in_word = true;
				break;
			}
			c = *++p;
			if (c == '\n') /* line continuation */
				continue;
		}
		in_word = true;
		if (buf_put(&b, c) < 0)
			goto nomem;
	}
	if (quote && !partial) {
		free(b.s);
		ax_words_free(out);
		return ax_fail(err, AX_CODE_USAGE, "unterminated %s quote",
			       quote == '"' ? "double" : "single");
	}
	out->open_quote = quote;
	out->ends_in_blank = !in_word && !quote && p > line && is_blank(p[-1]);
	if (in_word && push_word(out, &b) < 0)
		goto nomem;
	return 0;
nomem:
	free(b.s);
	ax_words_free(out);
	return ax_fail(err, AX_CODE_IO, "out of memory");
}
