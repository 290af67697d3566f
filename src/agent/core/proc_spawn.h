/* Running a shell command for a request: /bin/sh -c in its own process
 * group, output on pipes, reaped through the agent's reaper. Shared by the
 * execd (/command) and AIO (/v1/shell/exec) routes. */
#ifndef ALLOX_AGENT_SPAWN_H
#define ALLOX_AGENT_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

#include "lib/ax_error.h"
#include "agent/core/route.h"

struct ag_proc {
	pid_t pid;      /* also its process group id */
	int out_fd;     /* read end of its stdout (O_CLOEXEC, blocking) */
	int err_fd;     /* read end of its stderr; -1 when merged into out_fd */
};

/* Another user a command runs as, looked up before fork (ident.h). */
struct ag_ident {
	uid_t uid;
	gid_t gid;
	size_t ngroups;
	gid_t *groups;  /* the supplementary groups */
};

/* Start `/bin/sh -c COMMAND` in CWD (NULL: $HOME, i.e. /home/gem) with the
 * agent's environment plus ENV ("K=V", NULL-terminated, may be NULL), stdin
 * from /dev/null, in a new process group, registered with ctx->reaper.
 * MERGE_STDERR sends stderr to out_fd too. A missing CWD is an error. */
int ag_proc_start(const struct ag_ctx *ctx, const char *command, const char *cwd, const char *const *env,
		  bool merge_stderr, struct ag_proc *p, ax_error *err);

/* ag_proc_start as IDENT (NULL: the agent's own identity): the child takes
 * its groups, then its gid and uid, and only then enters CWD, so a
 * directory that user may not enter is an error, as with the official
 * execd. The environment is the same for every user (HOME included), as
 * there. */
int ag_proc_start_as(const struct ag_ctx *ctx, const char *command, const char *cwd, const char *const *env,
		     bool merge_stderr, const struct ag_ident *ident, struct ag_proc *p, ax_error *err);

/* Wait up to TIMEOUT_MS (< 0: forever) for it to end. Returns 1 and the
 * waitpid status in *STATUS when it ended, 0 on timeout, -1 on error. */
int ag_proc_wait(const struct ag_ctx *ctx, struct ag_proc *p, int timeout_ms, int *status);

/* Send SIG to its whole process group. */
void ag_proc_kill(const struct ag_proc *p, int sig);

/* Close its pipes (it keeps running if it still does). */
void ag_proc_close(struct ag_proc *p);

/* Start a long-lived child (a kernel, Chromium, an MCP server): fork with
 * REAPER locked, so it is watched before it can end and its pid cannot be
 * reused, into a process group of its own, with a pidfd that becomes
 * readable when it ends. In the child, CHILD_MAIN(ARG, REPORT_FD) may only
 * make async-signal-safe calls: it execs, or writes an errno to REPORT_FD
 * (close-on-exec, so silence means the exec worked) and _exits.
 * Returns 0 once the exec worked. Otherwise an errno value and *STEP names
 * what failed: "fork" (*PID is 0), "cannot start" or "pidfd_open" (*PID is
 * the child, for the caller to stop). */
int ag_child_fork(struct ag_reaper *reaper, void (*child_main)(void *arg, int report_fd), void *arg, pid_t *pid,
		  int *pidfd, const char **step);

/* The file exec would run for NAME: NAME itself when it has a slash, else
 * the first executable NAME along ENV's PATH (default /usr/local/bin:/usr/bin:/bin).
 * Looked up before fork, as a child may only make async-signal-safe calls.
 * malloc'd; NULL when not found (or NAME is NULL). */
char *ag_find_program(const char *name, char *const *env);

/* The environment a child gets: the agent's minus its internal variables,
 * then EXTRA ("K=V", NULL-terminated, may be NULL; the last of a name
 * wins). The strings are borrowed; free only the array. NULL on ENOMEM. */
char **ag_child_environ(const char *const *extra);

/* In a freshly forked child (async-signal-safe; also used for the
 * entrypoint, supervise.c): put it in a process group of its own and undo
 * what the agent changed for itself (SIGPIPE ignored, signals blocked), which
 * would otherwise survive exec. */
void ag_child_setup(void);

/* In a forked child just before exec: mark every descriptor from 3 up
 * close-on-exec, or where close_range is missing close them all up to 1024
 * except KEEP_FD. */
void ag_child_close_fds(int keep_fd);

#endif
