#include "lib/duration.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define DURATION_FORMS "Use seconds (90) or h/m/s units in that order (90s, 10m, 1h30m, 2h)."

/* Upper bound keeps every later arithmetic (now + duration, ms) far from overflow. */
#define DURATION_MAX (100LL * 365 * 24 * 3600)

static int invalid(ax_error *err, const char *s)
{
	return ax_fail(err, AX_CODE_INVALID_DURATION, "Invalid duration '%s'. " DURATION_FORMS, s);
}

int ax_duration_parse(const char *s, long long *seconds, ax_error *err)
{
	static const struct { char unit; long long factor; } units[] = {
		{ 'h', 3600 }, { 'm', 60 }, { 's', 1 },
	};
	const char *p = s;
	size_t next_unit = 0;
	long long total = 0;
	bool any = false;

	if (!s)
		return ax_fail(err, AX_CODE_INVALID_DURATION, "Duration cannot be empty. " DURATION_FORMS);
	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return ax_fail(err, AX_CODE_INVALID_DURATION, "Duration cannot be empty. " DURATION_FORMS);

	while (*p && !isspace((unsigned char)*p)) {
		long long n = 0;
		const char *digits = p;
		size_t u;

		while (isdigit((unsigned char)*p)) {
			if (n > DURATION_MAX)
				return invalid(err, s);
			n = n * 10 + (*p - '0');
			p++;
		}
		if (p == digits)
			return invalid(err, s);
		if (!*p || isspace((unsigned char)*p)) {
			/* A bare number is seconds, and only on its own. */
			if (any)
				return invalid(err, s);
			total = n;
			any = true;
			break;
		}
		for (u = next_unit; u < sizeof units / sizeof units[0]; u++)
			if (units[u].unit == *p)
				break;
		if (u == sizeof units / sizeof units[0])
			return invalid(err, s);
		total += n * units[u].factor;
		if (total > DURATION_MAX)
			return invalid(err, s);
		next_unit = u + 1;
		any = true;
		p++;
	}
	while (isspace((unsigned char)*p))
		p++;
	if (*p || !any || total > DURATION_MAX)
		return invalid(err, s);
	*seconds = total;
	return 0;
}

int ax_duration_parse_nullable(const char *s, long long *seconds, bool *none, ax_error *err)
{
	static const char *const words[] = { "none", "null", "off", "false", "0" };
	char word[16];
	size_t i, n;

	*none = false;
	if (s) {
		while (isspace((unsigned char)*s))
			s++;
		n = strcspn(s, " \t\n");
		if (n < sizeof word && !s[n + strspn(s + n, " \t\n")]) {
			memcpy(word, s, n);
			word[n] = '\0';
			for (i = 0; i < sizeof words / sizeof words[0]; i++) {
				if (strcasecmp(word, words[i]) == 0) {
					*none = true;
					*seconds = 0;
					return 0;
				}
			}
		}
	}
	if (ax_duration_parse(s, seconds, err) < 0) {
		if (err)
			snprintf(err->message + strlen(err->message), sizeof err->message - strlen(err->message),
			 " 'none' means no expiry.");
		return -1;
	}
	return 0;
}

void ax_duration_format(long long seconds, char *buf, unsigned size)
{
	long long h = seconds / 3600, m = seconds % 3600 / 60, s = seconds % 60;
	int off = 0;

	if (size == 0)
		return;
	buf[0] = '\0';
	if (h)
		off += snprintf(buf + off, size - (unsigned)off, "%lldh", h);
	if (m && (unsigned)off < size)
		off += snprintf(buf + off, size - (unsigned)off, "%lldm", m);
	if ((s || seconds == 0) && (unsigned)off < size)
		snprintf(buf + off, size - (unsigned)off, "%llds", s);
}
