#include "lib/ax_error.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	int exit_status;
} codes[AX_CODE_COUNT] = {
	[AX_CODE_NONE] = { "ERROR", AX_EXIT_FAILURE },
#define AX_CODE_ROW(name, exit_status) [AX_CODE_##name] = { #name, exit_status },
	AX_ERROR_CODES(AX_CODE_ROW)
#undef AX_CODE_ROW
};

const char *ax_code_name(ax_code code)
{
	return code > AX_CODE_NONE && code < AX_CODE_COUNT ? codes[code].name : codes[AX_CODE_NONE].name;
}

int ax_code_exit(ax_code code)
{
	return code > AX_CODE_NONE && code < AX_CODE_COUNT ? codes[code].exit_status : AX_EXIT_FAILURE;
}

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

int ax_vfail(ax_error *err, ax_code code, const char *fmt, va_list ap)
{
	if (!err)
		return -1;
	err->code = code;
	err->exit_code = ax_code_exit(code);
	err->peer_code[0] = '\0';
	vsnprintf(err->message, sizeof err->message, fmt, ap);
	one_line(err->message);
	err->hint[0] = '\0';
	return -1;
}

int ax_fail(ax_error *err, ax_code code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ax_vfail(err, code, fmt, ap);
	va_end(ap);
	return -1;
}

int ax_fail_signal(ax_error *err, int sig, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ax_vfail(err, AX_CODE_INTERRUPTED, fmt, ap);
	va_end(ap);
	if (err && sig > 0)
		err->exit_code = AX_EXIT_SIGNAL_BASE + sig;
	return -1;
}

void ax_error_peer_code(ax_error *err, const char *peer)
{
	if (!err)
		return;
	snprintf(err->peer_code, sizeof err->peer_code, "%s", peer ? peer : "");
	one_line(err->peer_code);
}

const char *ax_error_code_name(const ax_error *err)
{
	return err->peer_code[0] ? err->peer_code : ax_code_name(err->code);
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
