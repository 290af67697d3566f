/* Running a helper program (cp, mke2fs) from the engine. */
#ifndef ALLOX_ENGINE_TOOL_H
#define ALLOX_ENGINE_TOOL_H

#include "lib/ax_error.h"

/* Run PATH with ARGV (stdin /dev/null, stdout and stderr captured) and wait
 * for it. 0 when it exits 0; else -1 with ERR "WHAT failed: <its last line
 * of output>". posix_spawn, so safe from a threaded engine. */
int ax_tool_run(const char *path, char *const argv[], const char *what, ax_error *err);

#endif
