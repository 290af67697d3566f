#include "agent/core/log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void ag_vlog(const char *fmt, va_list ap)
{
	char line[1024];
	int n, saved = errno;
	size_t len;

	/* Format the whole line first and emit it with one write(): connection
	 * threads log concurrently and the entrypoint shares this stderr. */
	n = snprintf(line, sizeof line, "allox-agent: ");
	if (n < 0)
		return;
	vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
	len = strlen(line);
	while (len && line[len - 1] == '\n')
		len--;
	if (len > sizeof line - 2)
		len = sizeof line - 2;
	line[len++] = '\n';
	if (write(STDERR_FILENO, line, len) < 0) {
		/* Nowhere left to report it. */
	}
	errno = saved;
}

void ag_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ag_vlog(fmt, ap);
	va_end(ap);
}
