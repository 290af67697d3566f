#include "hook.h"

#include <stdio.h>
#include <string.h>

int ax_after_success(ax_ctx *ctx, const char *operation, const char *sandbox_id, ax_error *err)
{
	(void)err;
	/* Automatic checkpoints attach here (checkpoint.enabled, on_success, operations). */
	if (ctx->verbose)
		fprintf(ctx->err, "[verbose] %s succeeded on %s\n", operation, sandbox_id);
	return 0;
}
