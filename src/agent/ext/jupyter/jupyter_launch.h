/* Starting a kernel process: the connection file it reads, and the process
 * itself, forked with the agent's reaper locked (so the main loop cannot reap
 * it before it is watched) into a process group of its own (so an interrupt
 * or a kill reaches whatever it starts, and never the agent), with a pidfd
 * that becomes readable the moment it ends.
 *
 * Transport: ipc, Unix sockets "<prefix>-<port>" in the agent's private 0700
 * directory. Sandboxes share the host's network namespace, so loopback TCP
 * ports would be open to every other sandbox, and iopub publishes outputs to
 * any subscriber without checking the key. */
#ifndef ALLOX_AGENT_JUPYTER_LAUNCH_H
#define ALLOX_AGENT_JUPYTER_LAUNCH_H

#include <stddef.h>
#include <sys/types.h>

#include "agent/ext/jupyter/jupyter.h"

/* The ports of the five channels in the connection file. */
enum jl_port {
	JL_SHELL = 1,
	JL_IOPUB,
	JL_STDIN,
	JL_CONTROL,
	JL_HB,
};

/* Write connection file PATH (mode 0600) for an ipc kernel whose sockets
 * are IPC_PREFIX-<port>, signing with KEY. 0, or -1 with ERR. */
int jl_write_connection(const char *path, const char *ipc_prefix, const char *key, const char *kernel_name,
			struct ag_error *err);

/* "ipc://<IPC_PREFIX>-<PORT>" into BUF. */
void jl_endpoint(char *buf, size_t size, const char *ipc_prefix, enum jl_port port);

struct jl_proc {
	pid_t pid;      /* also its process group */
	int pidfd;      /* readable once it has ended; -1 when there is none */
};

/* Start ARGV with environment ENV in CWD, stdin from /dev/null, stdout and
 * stderr appended to LOG_PATH, watched by REAPER. 0, or -1 with ERR. */
int jl_spawn(struct ag_reaper *reaper, char *const *argv, char *const *env, const char *cwd, const char *log_path,
	     struct jl_proc *p, struct ag_error *err);

/* Has P ended? Waits up to TIMEOUT_MS (0: just look). */
int jl_ended(const struct jl_proc *p, int timeout_ms);

/* Send SIG to P's process group, and to P itself should the group be gone. */
void jl_signal(const struct jl_proc *p, int sig);

/* How P ended, in WHY ("exit status 1", "signal 9 (Killed)"), asking REAPER
 * for at most WAIT_MS; P is then forgotten by REAPER. */
void jl_collect(struct ag_reaper *reaper, struct jl_proc *p, int wait_ms, char *why, size_t size);

/* End P for good: SIGTERM to its group, up to GRACE_MS, then SIGKILL; stop
 * watching it and close its pidfd. */
void jl_stop(struct ag_reaper *reaper, struct jl_proc *p, int grace_ms);

#endif
