/* Carried by the agent and by the extension module alike (local.mk's
 * AGENT_SHARED_SOURCES): both fail through it. */
#include "agent/core/ag_error.h"

#include <stdarg.h>
#include <stdio.h>

static int vfail(struct ag_error *err, unsigned status, int code, const char *fmt, va_list ap)
{
	err->status = status;
	err->code = code;
	vsnprintf(err->message, sizeof err->message, fmt, ap);
	return -1;
}

int ag_fail(struct ag_error *err, unsigned status, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail(err, status, 0, fmt, ap);
	va_end(ap);
	return rc;
}

int ag_fail_code(struct ag_error *err, unsigned status, int code, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail(err, status, code, fmt, ap);
	va_end(ap);
	return rc;
}
