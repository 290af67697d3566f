/* Watching a spawned command: its output pipes and its exit together, so a
 * command that leaves a background child holding the pipes open still
 * counts as finished when its shell exits (as with the official execd). */
#ifndef ALLOX_AGENT_EXECD_PROC_H
#define ALLOX_AGENT_EXECD_PROC_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

#include "agent/core/proc_spawn.h"

struct ag_watch {
	const struct ag_ctx *ctx;
	struct ag_proc *proc;
	int pidfd;          /* readable once it exits; -1: poll for the exit instead */
	bool exited;
	int status;         /* waitpid status once exited, -1 if it was lost */
	int hup_fd;         /* a client socket to watch for hang-ups, or -1 */
	bool hung_up;       /* ... and the client has gone */
};

void ag_watch_init(struct ag_watch *w, const struct ag_ctx *ctx, struct ag_proc *proc);
void ag_watch_close(struct ag_watch *w);

/* Wait up to TIMEOUT_MS (< 0: no limit) for output or the exit. READY[0]
 * and READY[1] tell whether out_fd and err_fd have data or EOF; w->exited
 * is set (and the command reaped) when it has ended. -1 on error. */
int ag_watch_poll(struct ag_watch *w, int timeout_ms, bool ready[2]);

/* After a kill: wait up to TIMEOUT_MS for the exit. */
void ag_watch_reap(struct ag_watch *w, int timeout_ms);

/* The exit code and text the official execd reports for STATUS (Go's
 * ProcessState): 7 and "exit status 7", or -1 and "signal: killed". */
int ag_exit_code(int status);
void ag_exit_text(int status, char *buf, size_t size);

#endif
