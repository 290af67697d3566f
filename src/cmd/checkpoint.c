/* checkpoint create | list | restore | delete | watch */
#include "cmd/checkpoint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cmd/common.h"
#include "lib/duration.h"
#include "lib/http.h"
#include "cli/target.h"

static const char *const list_columns[] = { "id", "sandbox_id", "name", "state", "created_at", NULL };

int ax_cmd_checkpoint_create(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	json_t *cp = ax_checkpoint_take(ctx, &ctx->target->lc, ctx->target->sandbox_id, ax_arg_string(args, "name"), err);

	if (!cp)
		return -1;
	res->kind = AX_RESULT_DATA;
	res->data = cp;
	res->view.title = "Checkpoint Created";
	return 0;
}

int ax_cmd_checkpoint_list(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	/* With --all (the row's target_all) no sandbox was resolved: every one's. */
	json_t *snaps = ax_checkpoint_list_all(&ctx->target->lc, ctx->target->sandbox_id, err), *rows, *s;
	size_t i;

	if (!snaps)
		return -1;
	rows = json_array();
	json_array_foreach(snaps, i, s) {
		json_t *o = ax_checkpoint_object(s);

		json_object_del(o, "reason");
		json_object_del(o, "message");
		json_array_append_new(rows, o);
	}
	json_decref(snaps);
	res->kind = AX_RESULT_DATA;
	res->data = rows;
	res->view.title = "Checkpoints";
	res->view.columns = list_columns;
	return 0;
}

/* The checkpoint to restore and the sandbox it came from (both malloc'd). */
static int resolve_checkpoint(ax_ctx *ctx, const ax_args *args, ax_lifecycle *lc, char **id, char **source,
			      ax_error *err)
{
	const char *given = ax_arg_string(args, "CHECKPOINT");
	json_t *snap = NULL;
	char *path;
	int rc;

	*id = *source = NULL;
	if (!given || strcmp(given, "latest") == 0) {
		*source = ax_resolve_sandbox(ctx, ax_arg_string(args, "source-sandbox"), err);
		if (!*source)
			return -1;
		*id = ax_checkpoint_latest(lc, *source, err);
		return *id ? 0 : -1;
	}
	path = ax_checkpoint_path(given);
	if (!path)
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	rc = ax_lc_call(lc, "GET", path, NULL, 200, &snap, err);
	free(path);
	if (rc < 0)
		return -1;
	if (strcasecmp(json_string_value(json_object_get(json_object_get(snap, "status"), "state")) ?: "", "Ready") != 0) {
		json_decref(snap);
		return ax_fail(err, AX_CODE_NOT_READY, "Checkpoint '%s' is not READY.", given);
	}
	*id = strdup(given);
	*source = strdup(json_string_value(json_object_get(snap, "sandboxId")) ?: "");
	json_decref(snap);
	return 0;
}

int ax_cmd_checkpoint_restore(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	ax_lifecycle *lc = &ctx->target->lc;
	char *id = NULL, *source = NULL;
	json_t *req = NULL, *launched = NULL;
	int rc = -1;

	if (resolve_checkpoint(ctx, args, lc, &id, &source, err) < 0)
		goto out;
	req = ax_sandbox_request(ctx, args, lc->local, id, err);
	if (!req || ax_sandbox_launch(ctx, lc, req, NULL, false, &launched, err) < 0)
		goto out;
	res->kind = AX_RESULT_DATA;
	res->data = json_pack("{s:O, s:s, s:s, s:O}", "id", json_object_get(launched, "id"), "checkpoint_id", id,
			      "source_sandbox_id", source, "aio_url", json_object_get(launched, "aio_url"));
	if (json_object_get(launched, "aio_ready_seconds"))
		json_object_set(res->data, "ready_seconds", json_object_get(launched, "aio_ready_seconds"));
	res->view.title = "Sandbox Restored";
	rc = 0;
out:
	json_decref(req);
	json_decref(launched);
	free(id);
	free(source);
	return rc;
}

int ax_cmd_checkpoint_delete(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	const char *id = ax_arg_string(args, "CHECKPOINT_ID");
	char *path = ax_checkpoint_path(id);
	int rc;

	if (!path)
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	rc = ax_lc_call(&ctx->target->lc, "DELETE", path, NULL, 204, NULL, err);
	free(path);
	if (rc < 0)
		return -1;
	res->kind = AX_RESULT_DATA;
	res->data = json_pack("{s:s, s:b}", "checkpoint_id", id, "deleted", 1);
	res->view.title = "Checkpoint Deleted";
	return 0;
}

/* The watch interval: --interval, else checkpoint.interval; TYPED is how
 * the user wrote it, for the banner. */
static int watch_interval(const ax_ctx *ctx, const ax_args *args, long long *secs, char *typed, size_t size, ax_error *err)
{
	const char *flag = ax_arg_string(args, "interval");
	const json_t *conf = ax_config_value(ctx->config, "checkpoint_interval");

	if (flag) {
		snprintf(typed, size, "%s", flag);
		if (ax_duration_parse(flag, secs, err) < 0)
			return -1;
	} else if (json_is_integer(conf)) {
		*secs = json_integer_value(conf);
		snprintf(typed, size, "%llds", *secs);
	} else {
		snprintf(typed, size, "%s", json_string_value(conf) ?: "");
		if (ax_duration_parse(typed, secs, err) < 0)
			return -1;
	}
	if (*secs <= 0)
		return ax_fail(err, AX_CODE_USAGE, "Checkpoint interval must be greater than zero.");
	return 0;
}

/* Sleep SECS, waking early on Ctrl-C or SIGTERM; 1 if interrupted. */
static int nap(ax_ctx *ctx, long long secs)
{
	struct timespec slice = { 0, 100 * 1000 * 1000 };

	for (long long ticks = secs * 10; ticks > 0; ticks--) {
		if (*ctx->interrupted)
			return 1;
		nanosleep(&slice, NULL);
	}
	return *ctx->interrupted != 0;
}

/* An interval of zero (given, or checkpoint.interval) is refused before the sandbox is looked up. */
int ax_check_checkpoint_watch(const ax_ctx *ctx, const ax_args *args, ax_error *err)
{
	char typed[64];
	long long secs;

	return watch_interval(ctx, args, &secs, typed, sizeof typed, err);
}

int ax_cmd_checkpoint_watch(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	const char *prefix = ax_arg_string(args, "name-prefix");
	const json_t *count_v = ax_arg_json(args, "count");
	long long secs, count = json_is_integer(count_v) ? json_integer_value(count_v) : 0;
	const char *id = ctx->target->sandbox_id;
	char typed[64];

	if (watch_interval(ctx, args, &secs, typed, sizeof typed, err) < 0)
		return -1;
	ctx->catch_interrupts();
	/* Each event is a line as it happens; the renderer shows them. */
	res->kind = AX_RESULT_STREAM;
	ax_stream_printf(ctx->stream, AX_STREAM_OUT, "Watching sandbox %s; checkpoint every %s. Press Ctrl+C to stop.\n",
			 id, typed);
	for (long long n = 1; !count || n <= count; n++) {
		char name[256];
		json_t *cp;

		if (nap(ctx, secs))
			break;
		snprintf(name, sizeof name, "%s-%lld", prefix, n);
		cp = ax_checkpoint_take(ctx, &ctx->target->lc, id, name, err);
		if (!cp) {
			if (*ctx->interrupted)
				break;
			return -1;
		}
		ax_stream_printf(ctx->stream, AX_STREAM_OUT, "Created checkpoint %s (%s)\n",
				 json_string_value(json_object_get(cp, "id")), name);
		json_decref(cp);
	}
	if (*ctx->interrupted)
		ax_stream_printf(ctx->stream, AX_STREAM_OUT, "Checkpoint watch stopped.\n");
	return 0;
}
