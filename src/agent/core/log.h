/* One line per notable event on stderr, prefixed so the engine's log of a
 * sandbox can tell the agent's lines from the entrypoint's output. */
#ifndef ALLOX_AGENT_LOG_H
#define ALLOX_AGENT_LOG_H

#include <stdarg.h>

void ag_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ag_vlog(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif
