/* Resolving and opening a command's target, once, for every handler. */
#include "cli/target.h"

#include <stdlib.h>
#include <string.h>

#include "cmd/common.h"
#include "api/runtime.h"

/* The sandbox the command names, else the current session's; malloc'd. */
static char *resolve_sandbox(ax_ctx *ctx, const ax_args *args, ax_error *err)
{
	const ax_positional_spec *p;
	const char *given = NULL, **words;
	size_t n;

	for (p = args->cmd->positionals; p && p->name && !given; p++) {
		if (p->kind == AX_VAL_SANDBOX_ID) {
			given = ax_arg_string(args, p->name);
		} else if (p->kind == AX_VAL_COMMAND) {
			if (ax_split_target(args, &given, &words, &n, err) < 0)
				return NULL;
			free(words);
		}
	}
	return ax_resolve_sandbox(ctx, given, err);
}

static int connect_runtime(ax_ctx *ctx, ax_target *t, ax_error *err)
{
	bool aio = t->kind == AX_TARGET_AIO;
	int port = aio ? (int)ax_config_int(ctx->config, "aio_port") : AX_EXECD_PORT;
	long timeout_s = (long)ax_config_int(ctx->config, "request_timeout");
	char cause[sizeof err->message];

	if (ax_runtime_connect(&t->lc, t->sandbox_id, port, timeout_s, &t->runtime, err) == 0) {
		t->runtime_open = true;
		if (aio && ctx->verbose)
			fprintf(ctx->err, "[verbose] AIO client: %s\n", t->runtime.base);
		return 0;
	}
	if (!aio)
		return -1;
	snprintf(cause, sizeof cause, "%s", err->message);
	ax_fail(err, AX_CODE_AIO_CONNECT, "Failed to connect to AIO sandbox '%s': %.600s", t->sandbox_id,
		cause);
	ax_error_hint(err, "Check the endpoint with: allox-cli sandbox endpoint %s", t->sandbox_id);
	return -1;
}

int ax_target_open(ax_ctx *ctx, const ax_args *args, ax_target *t, ax_error *err)
{
	const ax_command_spec *c = args->cmd;

	memset(t, 0, sizeof t[0]);
	t->kind = c->target;
	if (c->target_all && ax_arg_flag(args, c->target_all))
		t->kind = AX_TARGET_SERVER;
	if (t->kind == AX_TARGET_NONE)
		return 0;
	/* The id first: a missing session is reported without starting an engine. */
	if (t->kind >= AX_TARGET_SANDBOX && !(t->sandbox_id = resolve_sandbox(ctx, args, err)))
		return -1;
	if (ax_open_lifecycle(ctx, &t->lc, err) < 0)
		return -1;
	t->lc_open = true;
	return t->kind >= AX_TARGET_EXECD ? connect_runtime(ctx, t, err) : 0;
}

void ax_target_explain(ax_target *t, ax_error *err)
{
	if (t->kind >= AX_TARGET_EXECD && t->lc_open)
		ax_runtime_explain(&t->lc, t->sandbox_id, err);
}

void ax_target_close(ax_target *t)
{
	if (t->runtime_open)
		ax_http_free(&t->runtime);
	if (t->lc_open)
		ax_lc_close(&t->lc);
	free(t->sandbox_id);
	memset(t, 0, sizeof t[0]);
}

int ax_dispatch(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	const ax_command_spec *c = args->cmd;
	ax_target t;
	int status = -1;

	memset(&t, 0, sizeof t);
	if ((!c->check || c->check(ctx, args, err) == 0) && ax_target_open(ctx, args, &t, err) == 0) {
		ctx->target = c->target != AX_TARGET_NONE ? &t : NULL;
		status = c->handler(ctx, args, res, err);
		ctx->target = NULL;
	}
	if (status < 0)
		ax_target_explain(&t, err);
	ax_target_close(&t);
	return status;
}
