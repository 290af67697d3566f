/* What happens after a successful operation (run, aio.exec, file.write, ...). */
#ifndef ALLOX_CMD_HOOK_H
#define ALLOX_CMD_HOOK_H

#include "cmd/command.h"

/* Called by every command whose success may trigger follow-up work; its
 * row's target is a sandbox, whose lifecycle connection takes the checkpoint.
 * OPERATION is the name used in checkpoint.operations ("run", "aio.exec",
 * "file.write", "file.upload", "aio.jupyter"). Returns 0: the operation's own
 * success stands (a failed automatic checkpoint is a warning on stderr), or -1
 * with ERR when checkpoint.strict makes that failure the command's. */
int ax_after_success(ax_ctx *ctx, const char *operation, const char *sandbox_id, ax_error *err);

#endif
