#include "agent/execd/execd_range.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A non-negative decimal number filling [S, E), after trimming blanks. */
static int number(const char *s, const char *e, uint64_t *v)
{
	char buf[32], *end;
	size_t n;

	while (s < e && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	n = (size_t)(e - s);
	if (n == 0 || n >= sizeof buf || !isdigit((unsigned char)*s))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	*v = strtoull(buf, &end, 10);
	return errno || *end ? -1 : 0;
}

static int blank(const char *s, const char *e)
{
	while (s < e && isspace((unsigned char)*s))
		s++;
	return s == e;
}

/* One "a-b", "a-" or "-n" in [S, E): 1 satisfiable, 0 not, -1 malformed. */
static int one_range(const char *s, const char *e, uint64_t size, uint64_t *start, uint64_t *len)
{
	const char *dash = memchr(s, '-', (size_t)(e - s));
	uint64_t a, b;

	if (!dash)
		return -1;
	if (blank(s, dash)) {
		if (number(dash + 1, e, &b) < 0)
			return -1;
		if (b > size)
			b = size;
		a = size - b;
		b = size - a;	/* the length */
	} else {
		if (number(s, dash, &a) < 0)
			return -1;
		if (blank(dash + 1, e)) {
			b = a < size ? size - a : 0;
		} else {
			if (number(dash + 1, e, &b) < 0 || b < a)
				return -1;
			b = b - a + 1;
		}
	}
	if (a >= size)
		return 0;
	if (b > size - a)
		b = size - a;
	*start = a;
	*len = b;
	return 1;
}

int ag_range_parse(const char *header, uint64_t size, uint64_t *start, uint64_t *len)
{
	const char *p;
	int found = 0;

	if (strncmp(header, "bytes=", 6) != 0)
		return -1;
	for (p = header + 6; *p;) {
		const char *comma = strchr(p, ',');
		const char *e = comma ? comma : p + strlen(p);

		if (!blank(p, e)) {
			uint64_t a, n;
			int rc = one_range(p, e, size, &a, &n);

			if (rc < 0)
				return -1;
			if (rc == 1 && !found) {
				*start = a;
				*len = n;
				found = 1;
			}
		}
		p = comma ? comma + 1 : e;
	}
	return found;
}
