/* One execute_request on a running kernel, start to end.
 *
 * Finished means both the shell execute_reply and the iopub idle status
 * whose parent is this request (they arrive on different sockets, in either
 * order); everything else on iopub with that parent is an output. Messages
 * with another parent (a request a timeout abandoned, an interrupt's own
 * busy/idle) are skipped.
 *
 * At the timeout the kernel is interrupted: interrupt_request on control,
 * then, unless its spec says interrupt_mode "message", SIGINT to its process
 * group; the interrupted code's reply and idle are still awaited, so the
 * next request starts on a quiet kernel that has kept its state. A kernel
 * that ignores both is killed. Outputs are those that came before the
 * timeout. */
#ifndef ALLOX_AGENT_JUPYTER_EXEC_H
#define ALLOX_AGENT_JUPYTER_EXEC_H

#include <jansson.h>
#include <stdbool.h>

#include "agent/ext/jupyter/jupyter_kernel.h"

enum jx_status {
	JX_OK,
	JX_ERROR,
	JX_TIMEOUT,
};

struct jx_run {
	enum jx_status status;
	json_t *outputs;                /* new reference */
	json_t *execution_count;        /* new reference: integer or null */
	char msg_id[JC_ID_SIZE];
	bool kernel_lost;               /* the kernel died or was killed: free it */
};

/* What else an execution watches besides its kernel. */
struct jx_watch {
	/* The socket of the HTTP client waiting for the answer (-1: none):
	 * when the client goes away (Ctrl-C), the kernel is interrupted as on
	 * a timeout, so its work stops too. */
	int client_fd;
	/* An eventfd (-1: none): when it becomes readable, the code is
	 * interrupted as on a timeout, but what it prints until it stops
	 * (KeyboardInterrupt) is kept and the status is "error". */
	int interrupt_fd;
	/* Called with each iopub message of this execution as it arrives
	 * (NULL: none), for callers that stream outputs. */
	void (*on_message)(void *cls, const struct jw_msg *m);
	void *cls;
};

/* Run CODE on K for at most TIMEOUT_MS, watching W (NULL: nothing). 0 with
 * RUN filled (also for an error or a timeout, and when the kernel died),
 * -1 with ERR when the request could not even be sent. */
int jx_execute(struct jk_kernel *k, const char *code, int timeout_ms, const struct jx_watch *w, struct jx_run *run,
	       struct ag_error *err);
void jx_run_free(struct jx_run *run);

const char *jx_status_name(enum jx_status s);

#endif
