/* The sandbox's console, capped. Under the engine the agent's stdout and
 * stderr are console.log on the host (O_APPEND), and the entrypoint's are
 * the same; left as they are, anything inside could grow that file without
 * bound. So the agent keeps the file to itself: its stdout and stderr, and
 * the entrypoint's, become pipes that a pump thread copies into the file
 * with a byte budget. When console.log would pass the cap, the pump moves
 * it into console.log.1 (both fds, as the agent cannot rename host files:
 * truncate console.log.1, copy console.log into it, truncate console.log)
 * and goes on at the start of console.log. So the host never holds more
 * than twice the cap, whoever writes, and the newest output is at the end
 * of console.log.
 *
 * Two pipes rather than one: the agent's own lines never queue behind a
 * flood from the entrypoint (the pump serves them first), and the
 * entrypoint's processes share a pipe description of their own, so one that
 * makes its stdout non-blocking (Node.js does) cannot make the agent's
 * writes fail. */
#ifndef ALLOX_AGENT_CONSOLE_H
#define ALLOX_AGENT_CONSOLE_H

#include <pthread.h>
#include <stdbool.h>

#include "lib/ax_error.h"

#define AG_CONSOLE_BUF 65536

struct ag_console {
	int log_fd;        /* console.log (was stdout/stderr), private; -1 when not capped */
	int old_fd;        /* console.log.1 */
	long long max;     /* bytes per file */
	long long size;    /* console.log's size */
	int own_r;         /* read end of the agent's stdout and stderr */
	int out_r, out_w;  /* the entrypoint's stdout and stderr */
	int stop_r, stop_w;
	pthread_t pump;
	bool pumping;
	char buf[AG_CONSOLE_BUF];
};

/* Take over stdout/stderr (the console log) with OLD_FD (console.log.1)
 * and a cap of MAX bytes per file: from here on the agent's own output goes
 * through a pipe. With OLD_FD < 0 nothing changes (no cap: an agent run by
 * hand, or by a runtime that does not rotate). Nothing is copied until
 * ag_console_start; a pipe holds 64 KiB meanwhile. */
int ag_console_open(struct ag_console *c, int old_fd, long long max, ax_error *err);

/* Start the pump thread (after the entrypoint is forked: see main.c). */
int ag_console_start(struct ag_console *c, ax_error *err);

/* What the entrypoint gets as stdout and stderr; -1: the agent's stderr. */
int ag_console_out_fd(const struct ag_console *c);

/* Copy what is still in the pipes, end the pump, and point stdout and
 * stderr at the log again (the last lines are few). Idempotent. */
void ag_console_close(struct ag_console *c);

#endif
