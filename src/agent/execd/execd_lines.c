#include "agent/execd/execd_lines.h"

#include <stdlib.h>
#include <string.h>

/* Where to cut a full buffer so a UTF-8 sequence is not split across two
 * events (each would otherwise show a replacement character). */
static size_t utf8_cut(const char *s, size_t n)
{
	size_t back;

	for (back = 1; back <= 3 && back <= n; back++) {
		unsigned char c = (unsigned char)s[n - back];

		if ((c & 0xc0) == 0x80)
			continue;	/* a continuation byte: keep looking for the lead */
		if (c >= 0xc0) {
			size_t need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;

			return need > back ? n - back : n;
		}
		return n;
	}
	return n;
}

static int add(struct ag_lines *l, const char *data, size_t n, ag_line_fn fn, void *cls)
{
	while (n) {
		size_t room, take;

		if (!l->carry) {
			l->carry = malloc(AG_LINE_MAX);
			if (!l->carry)
				return -1;
		}
		room = AG_LINE_MAX - l->len;
		take = n < room ? n : room;
		memcpy(l->carry + l->len, data, take);
		l->len += take;
		data += take;
		n -= take;
		if (l->len == AG_LINE_MAX) {
			size_t cut = utf8_cut(l->carry, l->len);

			if (cut == 0)
				cut = l->len;
			if (fn(cls, l->carry, cut, false) < 0)
				return -1;
			memmove(l->carry, l->carry + cut, l->len - cut);
			l->len -= cut;
		}
	}
	return 0;
}

int ag_lines_feed(struct ag_lines *l, const char *data, size_t n, ag_line_fn fn, void *cls)
{
	while (n) {
		size_t i = 0;

		if (l->after_cr && data[0] == '\n') {
			data++;
			n--;
			l->after_cr = false;
			continue;
		}
		l->after_cr = false;
		while (i < n && data[i] != '\n' && data[i] != '\r')
			i++;
		if (i == n)
			return add(l, data, n, fn, cls);
		/* A whole line with nothing carried goes out without a copy. */
		if (l->len == 0) {
			if (fn(cls, data, i, true) < 0)
				return -1;
		} else {
			/* (A line of exactly AG_LINE_MAX bytes went out whole in add.) */
			if (add(l, data, i, fn, cls) < 0 || (l->len && fn(cls, l->carry, l->len, true) < 0))
				return -1;
			l->len = 0;
		}
		l->after_cr = data[i] == '\r';
		data += i + 1;
		n -= i + 1;
	}
	return 0;
}

int ag_lines_flush(struct ag_lines *l, ag_line_fn fn, void *cls)
{
	int rc = 0;

	if (l->len)
		rc = fn(cls, l->carry, l->len, false);
	l->len = 0;
	return rc;
}

void ag_lines_free(struct ag_lines *l)
{
	free(l->carry);
	memset(l, 0, sizeof *l);
}
