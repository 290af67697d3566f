/* Errors travel up to the command layer as values; only src/cli prints them. */
#ifndef ALLOX_ERROR_H
#define ALLOX_ERROR_H

#include <stdarg.h>

/* Exit statuses are a contract (see allox-cli --help and README). */
enum {
	AX_EXIT_OK = 0,
	AX_EXIT_FAILURE = 1,
	AX_EXIT_USAGE = 2,
};

typedef struct ax_error {
	int exit_code;        /* AX_EXIT_FAILURE or AX_EXIT_USAGE */
	char code[64];        /* machine-readable code for -o json errors, e.g. "USAGE" */
	char message[1024];   /* one line, no trailing newline, no "Error: " prefix */
	char hint[512];       /* optional second line shown after the message */
} ax_error;

/* Fill ERR (if non-NULL) and return -1 so callers can write `return ax_fail(...)`. */
int ax_fail(ax_error *err, int exit_code, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int ax_vfail(ax_error *err, int exit_code, const char *code, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));
void ax_error_hint(ax_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ax_error_clear(ax_error *err);

#endif
