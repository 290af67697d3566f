/* One running kernel: its process (jupyter_launch.h), the ZeroMQ sockets
 * the agent talks to it on, and the files it needs (connection file, log,
 * ipc sockets) in the agent's private directory. Started with a readiness
 * handshake (kernel_info until it answers and iopub is live); executions are
 * in jupyter_exec.c.
 *
 * A kernel is used by one thread at a time (its session's turn, jupyter.c);
 * only jk_kernel_kill may be called from another thread meanwhile. */
#ifndef ALLOX_AGENT_JUPYTER_KERNEL_H
#define ALLOX_AGENT_JUPYTER_KERNEL_H

#include <stdbool.h>

#include "agent/ext/jupyter/jupyter.h"
#include "agent/ext/jupyter/jupyter_channel.h"
#include "agent/ext/jupyter/jupyter_launch.h"
#include "agent/ext/jupyter/jupyter_spec.h"

/* What every kernel of the agent shares. */
struct jk_site {
	void *zmq;                  /* the ZeroMQ context */
	struct ag_reaper *reaper;
	const char *dir;            /* private (0700) directory for kernel files */
};

struct jk_kernel {
	char name[JK_NAME_MAX + 1];         /* the kernelspec's */
	bool interrupt_message;             /* interrupt only by interrupt_request */
	struct ag_reaper *reaper;
	struct jl_proc proc;
	char key[65];                       /* HMAC key (hex text, used as bytes) */
	char session[JC_ID_SIZE];           /* our session id in every header */
	void *shell, *control, *iopub;
	char *files;                        /* "<dir>/<id>": prefix of the kernel's files */
};

/* Start kernel SPEC as ID (a short name unique in SITE->dir) in CWD and
 * wait until it answers. NULL with ERR (404/503/500) when it cannot. */
struct jk_kernel *jk_kernel_start(const struct jk_site *site, const char *id, const struct jk_spec *spec,
				  const char *cwd, struct ag_error *err);

/* Stop it (SIGTERM, then SIGKILL), close its sockets, remove its files. */
void jk_kernel_free(struct jk_kernel *k);

/* From any thread: kill its process group now. The thread using it sees
 * the kernel die. */
void jk_kernel_kill(struct jk_kernel *k);

/* Has its process ended? If so, WHY says how (and the process is
 * collected: the kernel is only good for jk_kernel_free). */
bool jk_kernel_dead(struct jk_kernel *k, char *why, size_t size);

/* The last line the kernel wrote to its log, for error messages ("" if none). */
void jk_kernel_log_tail(const struct jk_kernel *k, char *buf, size_t size);

#endif
