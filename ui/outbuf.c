/* Scrollback for the output pane. */
#include "ui/outbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

void ax_outbuf_init(ax_outbuf *b)
{
	memset(b, 0, sizeof *b);
}

void ax_outbuf_clear(ax_outbuf *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		free(b->lines[i]);
	b->n = 0;
	b->open = b->cr = false;
	b->esc = 0;
	b->scroll = 0;
}

void ax_outbuf_free(ax_outbuf *b)
{
	ax_outbuf_clear(b);
	free(b->lines);
	memset(b, 0, sizeof *b);
}

static void new_line(ax_outbuf *b)
{
	char *s;

	if (b->n == AX_OUTBUF_MAX_LINES) {
		/* Drop the oldest tenth at once, not one line per line. */
		size_t drop = AX_OUTBUF_MAX_LINES / 10, i;

		for (i = 0; i < drop; i++)
			free(b->lines[i]);
		memmove(b->lines, b->lines + drop, (b->n - drop) * sizeof *b->lines);
		b->n -= drop;
	}
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		char **v = realloc(b->lines, cap * sizeof *v);

		if (!v)
			return;
		b->lines = v;
		b->cap = cap;
	}
	s = strdup("");
	if (!s)
		return;
	b->lines[b->n++] = s;
	b->open = true;
}

static void put(ax_outbuf *b, const char *s, size_t len)
{
	char **last;
	size_t old;
	char *grown;

	if (!b->open || b->n == 0)
		new_line(b);
	if (b->n == 0)
		return;
	last = &b->lines[b->n - 1];
	old = strlen(*last);
	grown = realloc(*last, old + len + 1);
	if (!grown)
		return;
	memcpy(grown + old, s, len);
	grown[old + len] = '\0';
	*last = grown;
}

void ax_outbuf_append(ax_outbuf *b, const char *data, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)data[i];

		if (b->esc == 1) {
			/* CSI; a string (OSC title, DCS, APC, PM) up to BEL or ST,
			 * whose text must not show either; intermediates before a
			 * final byte (ESC ( B). */
			b->esc = c == '[' ? 2 : c == ']' || c == 'P' || c == '_' || c == '^' ? 3 : c >= 0x20 && c <= 0x2f ? 1 : 0;
			continue;
		}
		if (b->esc == 2) {
			if (c >= 0x40 && c <= 0x7e)
				b->esc = 0;
			continue;
		}
		if (b->esc == 3 || b->esc == 4) {
			/* BEL, or ST (ESC \\), ends the string. */
			b->esc = c == 0x07 || (b->esc == 4 && c == '\\') ? 0 : c == 0x1b ? 4 : 3;
			continue;
		}
		if (b->cr && c != '\n') {
			b->cr = false;
			if (b->open && b->n)
				b->lines[b->n - 1][0] = '\0';
		}
		switch (c) {
		case '\n':
			b->cr = false;
			if (!b->open)
				new_line(b);
			b->open = false;
			break;
		case '\r':
			b->cr = true;
			break;
		case '\t':
			put(b, "        ", 8 - strlen(b->open && b->n ? b->lines[b->n - 1] : "") % 8);
			break;
		case 0x1b:
			b->esc = 1;
			break;
		default:
			if (c < 0x20 || c == 0x7f)
				break;
			put(b, (const char *)&data[i], 1);
		}
	}
}

void ax_outbuf_line(ax_outbuf *b, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (b->open)
		ax_outbuf_append(b, "\n", 1);
	ax_outbuf_append(b, buf, strlen(buf));
	ax_outbuf_append(b, "\n", 1);
}

int ax_outbuf_wrap(const char *line, int width, size_t *starts, int max)
{
	mbstate_t st;
	size_t off = 0, len = strlen(line);
	int rows = 1, col = 0;

	if (starts && max > 0)
		starts[0] = 0;
	if (width < 1)
		return 1;
	memset(&st, 0, sizeof st);
	while (off < len) {
		wchar_t wc;
		size_t k = mbrtowc(&wc, line + off, len - off, &st);
		int w;

		if (k == (size_t)-1 || k == (size_t)-2) {
			memset(&st, 0, sizeof st);
			k = 1;
			w = 1;
		} else {
			w = wcwidth(wc);
			if (w < 0)
				w = 1;
		}
		if (k == 0)
			k = 1;
		if (col + w > width) {
			if (starts && rows < max)
				starts[rows] = off;
			rows++;
			col = 0;
		}
		col += w;
		off += k;
	}
	return rows;
}
