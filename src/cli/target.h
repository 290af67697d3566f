/*
 * A command's target (ax_target_kind in command.h), opened by the dispatcher
 * before the handler runs: the sandbox resolved, the lifecycle connection
 * open, the runtime connected. Handlers read it from ctx->target.
 */
#ifndef ALLOX_CMD_TARGET_H
#define ALLOX_CMD_TARGET_H

#include <stdbool.h>

#include "cmd/command.h"
#include "lib/http.h"
#include "api/lifecycle.h"

typedef struct ax_target {
	ax_target_kind kind;      /* what was asked for (AX_TARGET_SERVER for a target_all flag) */
	char *sandbox_id;         /* AX_TARGET_SANDBOX and beyond */
	ax_lifecycle lc;          /* open from AX_TARGET_SERVER on */
	/* AX_TARGET_EXECD or AX_TARGET_AIO. Its per-request limit is
	 * connection.request_timeout; a handler whose calls may run longer sets
	 * runtime.timeout_s before its first call. */
	ax_http runtime;
	bool lc_open, runtime_open;
} ax_target;

/* Resolve and open what ARGS->cmd's row asks for into *T (zeroed first).
 * The sandbox is the SANDBOX_ID positional, else a sandbox UUID leading the
 * COMMAND words (a usage error when no command follows it), else the current
 * session. Returns 0 or -1 with ERR; close *T in either case. */
int ax_target_open(ax_ctx *ctx, const ax_args *args, ax_target *t, ax_error *err);

/* After a failure: when ERR is a transport failure talking to the target's
 * runtime and the sandbox is not running, ERR says that instead (its state,
 * why: ax_runtime_explain). */
void ax_target_explain(ax_target *t, ax_error *err);

void ax_target_close(ax_target *t);

#endif
