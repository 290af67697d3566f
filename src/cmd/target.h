/*
 * A command's target (ax_target_kind in command.h) as the handler finds it
 * in ctx->target: the sandbox resolved, the lifecycle connection open, the
 * runtime connected. The dispatcher (src/cli/target.c) opens and closes it.
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

#endif
