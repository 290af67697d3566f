#include "lib/ax_error.h"

#include <stdio.h>
#include <string.h>

/* Messages quote user input and peer data (names, paths, server text): a
 * newline there would break the one-line contract and an escape sequence
 * would reach the terminal. Control bytes become '?'; tabs become spaces. */
static void one_line(char *s)
{
	for (; *s; s++)
		if (*s == '\t')
			*s = ' ';
		else if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

int ax_vfail(ax_error *err, int exit_code, const char *code, const char *fmt, va_list ap)
{
	if (!err)
		return -1;
	err->exit_code = exit_code;
	snprintf(err->code, sizeof err->code, "%s", code ? code : "ERROR");
	vsnprintf(err->message, sizeof err->message, fmt, ap);
	one_line(err->message);
	err->hint[0] = '\0';
	return -1;
}

int ax_fail(ax_error *err, int exit_code, const char *code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ax_vfail(err, exit_code, code, fmt, ap);
	va_end(ap);
	return -1;
}

void ax_error_hint(ax_error *err, const char *fmt, ...)
{
	va_list ap;
	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err->hint, sizeof err->hint, fmt, ap);
	va_end(ap);
	one_line(err->hint);
}

void ax_error_clear(ax_error *err)
{
	if (err)
		memset(err, 0, sizeof *err);
}
