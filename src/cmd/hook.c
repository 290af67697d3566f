/* After a successful operation: the automatic checkpoint (the [checkpoint]
 * keys enabled, on_success, operations and strict). */
#include "cmd/hook.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cmd/checkpoint.h"
#include "cmd/target.h"

static bool listed(const json_t *operations, const char *operation)
{
	size_t i;
	json_t *op;

	json_array_foreach(operations, i, op)
		if (strcmp(json_string_value(op) ?: "", operation) == 0)
			return true;
	return false;
}

/* "auto-file-write-20260101T000000Z" */
static void auto_name(const char *operation, char *out, size_t size)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	size_t n;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
	n = (size_t)snprintf(out, size, "auto-%s-%s", operation, stamp);
	for (size_t i = 5; i < n && i < size && out[i]; i++)
		if (out[i] == '.')
			out[i] = '-';
}

int ax_after_success(ax_ctx *ctx, const char *operation, const char *sandbox_id, ax_error *err)
{
	const ax_config *cfg = ctx->config;
	char name[128];
	ax_error why;
	json_t *cp = NULL;

	if (ctx->verbose)
		fprintf(ctx->err, "[verbose] %s succeeded on %s\n", operation, sandbox_id);
	if (!cfg || !ax_config_bool(cfg, "checkpoint_enabled") || !ax_config_bool(cfg, "checkpoint_on_success") ||
	    !listed(ax_config_value(cfg, "checkpoint_operations"), operation))
		return 0;
	auto_name(operation, name, sizeof name);
	ax_error_clear(&why);
	cp = ax_checkpoint_take(ctx, &ctx->target->lc, sandbox_id, name, &why);
	if (cp) {
		if (ctx->verbose)
			fprintf(ctx->err, "[verbose] checkpoint created: %s (%s)\n",
				json_string_value(json_object_get(cp, "id")), operation);
		json_decref(cp);
		return 0;
	}
	if (ax_config_bool(cfg, "checkpoint_strict")) {
		/* The cause's code (and exit status) tell scripts more than a generic one. */
		ax_fail(err, why.code ? why.code : AX_CODE_CHECKPOINT_FAILED, "automatic checkpoint failed after %s: %s",
			operation, why.message);
		ax_error_peer_code(err, why.peer_code);
		return -1;
	}
	fprintf(ctx->err, "Warning: automatic checkpoint failed after %s: %s\n", operation, why.message);
	return 0;
}
