/*
 * The dispatcher: a verb's checks, then its target (cmd/target.h) resolved
 * and opened as its table entry says, then its handler; the target closed
 * after.
 */
#ifndef ALLOX_CLI_TARGET_H
#define ALLOX_CLI_TARGET_H

#include "cmd/target.h"

/* Resolve and open what ARGS->cmd's entry asks for into *T (zeroed first).
 * The sandbox is the SANDBOX_ID positional, else a sandbox UUID leading the
 * COMMAND words (a usage error when no command follows it), else the current
 * session. Returns 0 or -1 with ERR; close *T in either case. */
int ax_target_open(ax_ctx *ctx, const ax_args *args, ax_target *t, ax_error *err);

/* After a failure: when ERR is a transport failure talking to the target's
 * runtime and the sandbox is not running, ERR says that instead (its state,
 * why: ax_runtime_explain). */
void ax_target_explain(ax_target *t, ax_error *err);

void ax_target_close(ax_target *t);

/* Run ARGS->cmd as its entry says: its checks, then its target opened (see
 * ax_target_kind), then its handler; the target is closed after. An exit
 * status, or -1 with ERR. */
int ax_dispatch(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err);

#endif
