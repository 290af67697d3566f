/* The sandbox's entrypoint: started once, never restarted, its state mirrored
 * to a JSON status file the engine reads (see docs in supervise.c). */
#ifndef ALLOX_AGENT_SUPERVISE_H
#define ALLOX_AGENT_SUPERVISE_H

#include <sys/types.h>
#include <time.h>

#include "lib/ax_error.h"

#define AG_STATUS_FILE_DEFAULT "/run/allox/entrypoint.json"

/* Environment variables with this prefix belong to the agent and are not
 * passed to the entrypoint. */
#define AG_INTERNAL_ENV_PREFIX "ALLOX_AGENT_"

enum ag_ep_state {
	AG_EP_NONE,
	AG_EP_RUNNING,
	AG_EP_EXITED,
	AG_EP_SIGNALED,
	AG_EP_FAILED,
};

struct ag_supervisor {
	const char *status_path;
	char **argv;            /* NULL when there is no entrypoint */
	enum ag_ep_state state;
	pid_t pid;              /* also its process group id */
	int code;               /* exit code or signal number */
	char error[256];        /* AG_EP_FAILED: why */
	time_t started, finished;
	int exec_fd;            /* until confirmed: EOF once ARGV is exec'd, else why not */
	int out_fd;             /* its stdout and stderr; -1: the agent's stderr */
};

/* Fork the entrypoint ARGV (NULL or empty: none) with OUT_FD as its stdout
 * and stderr (-1: the agent's stderr); call while the process has one
 * thread. Its exec is confirmed by ag_supervise_confirm, so the caller
 * can start serving meanwhile: the exec (a PATH search, loading the program)
 * then no longer delays the sandbox's readiness. */
void ag_supervise_start(struct ag_supervisor *s, const char *status_path, char **argv, int out_fd);

/* Wait until the entrypoint has exec'd or failed to, and write the first
 * status. Fails only when the status file cannot be written; an entrypoint
 * that cannot be executed is a "failed" state, not an error. */
int ag_supervise_confirm(struct ag_supervisor *s, ax_error *err);

/* Record that child PID ended with wait STATUS. 1 if it was the entrypoint,
 * 0 if not, -1 with ERR if the status file could not be written. */
int ag_supervise_child_exited(struct ag_supervisor *s, pid_t pid, int status, ax_error *err);

/* Send SIG to the entrypoint's process group. 0 if sent, -1 if there is no such group. */
int ag_supervise_signal(const struct ag_supervisor *s, int sig);

#endif
