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
#include "cmd/target.h"
#include "cmd/groups.h"

static const char *const list_columns[] = { "id", "sandbox_id", "name", "state", "created_at", NULL };

static int cmd_checkpoint_create(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	json_t *cp = ax_checkpoint_take(ctx, &ctx->target->lc, ctx->target->sandbox_id, ax_arg_string(args, "name"), err);

	if (!cp)
		return -1;
	res->kind = AX_RESULT_DATA;
	res->data = cp;
	res->view.title = "Checkpoint Created";
	return 0;
}

static int cmd_checkpoint_list(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
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

static int cmd_checkpoint_restore(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
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

static int cmd_checkpoint_delete(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
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
static int check_checkpoint_watch(const ax_ctx *ctx, const ax_args *args, ax_error *err)
{
	char typed[64];
	long long secs;

	return watch_interval(ctx, args, &secs, typed, sizeof typed, err);
}

static int cmd_checkpoint_watch(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
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

/* The table entries of the verbs above (cmd/command.h). */

static const ax_option_spec checkpoint_create_options[] = {
	{ .name = "name", .short_name = 'n', .kind = AX_VAL_TEXT, .metavar = "NAME",
	  .help = "a name for the checkpoint" },
	AX_OPTIONS_END,
};

static const ax_option_spec checkpoint_list_options[] = {
	{ .name = "all", .short_name = 'a', .kind = AX_VAL_NONE, .help = "every sandbox's checkpoints" },
	AX_OPTIONS_END,
};

static const ax_positional_spec checkpoint_restore_positionals[] = {
	{ .name = "CHECKPOINT", .arity = AX_POS_OPTIONAL, .kind = AX_VAL_CHECKPOINT,
	  .help = "a checkpoint id, or latest (default)" },
	AX_POSITIONALS_END,
};

static const ax_option_spec checkpoint_restore_options[] = {
	{ .name = "source-sandbox", .short_name = 's', .kind = AX_VAL_SANDBOX_ID, .metavar = "SANDBOX_ID",
	  .help = "whose latest checkpoint (default: the current session)" },
	{ .name = "timeout", .short_name = 't', .kind = AX_VAL_DURATION, .metavar = "DURATION",
	  .help = "lifetime of the new sandbox (default: defaults.timeout)" },
	AX_OPTIONS_END,
};

static const ax_positional_spec checkpoint_delete_positionals[] = {
	{ .name = "CHECKPOINT_ID", .arity = AX_POS_REQUIRED, .kind = AX_VAL_CHECKPOINT_ID,
	  .help = "the checkpoint to delete" },
	AX_POSITIONALS_END,
};

static const ax_option_spec checkpoint_watch_options[] = {
	{ .name = "interval", .short_name = 'i', .kind = AX_VAL_DURATION, .metavar = "DURATION",
	  .help = "time between checkpoints (default: checkpoint.interval)" },
	{ .name = "count", .short_name = 'c', .kind = AX_VAL_INT, .metavar = "N", .min = "1",
	  .help = "stop after N checkpoints (default: until Ctrl-C)" },
	{ .name = "name-prefix", .kind = AX_VAL_TEXT, .metavar = "PREFIX", .defval = "scheduled",
	  .help = "checkpoints are named PREFIX-1, PREFIX-2, ..." },
	AX_OPTIONS_END,
};

static const char *const checkpoint_create_examples[] = {
	"allox-cli checkpoint create --name v1",
	"CHECKPOINT_ID=$(allox-cli checkpoint create --name v1 -o json | jq -r .id)",
	NULL,
};

static const char *const checkpoint_restore_examples[] = {
	"allox-cli checkpoint restore \"$CHECKPOINT_ID\" --timeout 30m -o json",
	"allox-cli checkpoint restore latest --source-sandbox \"$SOURCE_ID\"",
	NULL,
};

static const char *const checkpoint_watch_examples[] = {
	"allox-cli checkpoint watch --interval 5m",
	"allox-cli checkpoint watch --interval 30s --count 3 --name-prefix nightly",
	NULL,
};

static const ax_command_spec checkpoint_create_verb = {
	.group = "checkpoint", .name = "create", .summary = "Save a checkpoint of a sandbox and wait until it is "
	"ready",
	.description = "Captures the sandbox's whole writable file system (the sandbox is frozen for the moment "
	"of the capture) and waits up to checkpoint.create_timeout seconds. Prints the checkpoint with its size "
	"on disk (when the server reports it) and how long it took.",
	.positionals = ax_sandbox_id_positionals, .options = checkpoint_create_options,
	.formats = AX_OBJECT_FORMATS, .default_format = AX_FMT_TABLE, .target = AX_TARGET_SANDBOX,
	.handler = cmd_checkpoint_create, .examples = checkpoint_create_examples,
};

static const ax_command_spec checkpoint_list_verb = {
	.group = "checkpoint", .name = "list", .summary = "List the checkpoints of a sandbox, or of every "
	"sandbox with --all",
	.positionals = ax_sandbox_id_positionals, .options = checkpoint_list_options,
	.formats = AX_OBJECT_FORMATS, .default_format = AX_FMT_TABLE, .target = AX_TARGET_SANDBOX,
	.target_all = "all", .handler = cmd_checkpoint_list,
};

static const ax_command_spec checkpoint_restore_verb = {
	.group = "checkpoint", .name = "restore", .summary = "Create a new sandbox from a checkpoint and make it "
	"current",
	.description = "CHECKPOINT is an id or latest (the newest ready checkpoint of --source-sandbox or the "
	"current session). The source sandbox is left running. Waits until the new sandbox's runtime answers "
	"(defaults.ready_timeout).",
	.positionals = checkpoint_restore_positionals, .options = checkpoint_restore_options,
	.formats = AX_OBJECT_FORMATS, .default_format = AX_FMT_TABLE, .target = AX_TARGET_SERVER,
	.handler = cmd_checkpoint_restore, .examples = checkpoint_restore_examples,
};

static const ax_command_spec checkpoint_delete_verb = {
	.group = "checkpoint", .name = "delete", .summary = "Delete a checkpoint",
	.description = "Sandboxes restored from it keep running: their layers stay until they end.",
	.positionals = checkpoint_delete_positionals,
	.formats = AX_OBJECT_FORMATS, .default_format = AX_FMT_TABLE, .target = AX_TARGET_SERVER,
	.handler = cmd_checkpoint_delete,
};

static const ax_command_spec checkpoint_watch_verb = {
	.group = "checkpoint", .name = "watch", .summary = "Save a checkpoint on an interval until Ctrl-C",
	.description = "Runs in the foreground: sleeps the interval, saves PREFIX-N, prints it, and repeats. "
	"Ctrl-C stops it with exit status 0; a failed checkpoint ends it with status 1.",
	.positionals = ax_sandbox_id_positionals, .options = checkpoint_watch_options,
	.target = AX_TARGET_SANDBOX, .check = check_checkpoint_watch, .handler = cmd_checkpoint_watch,
	.examples = checkpoint_watch_examples,
};

static const ax_command_spec *const checkpoint_verbs[] = {
	&checkpoint_create_verb,
	&checkpoint_list_verb,
	&checkpoint_restore_verb,
	&checkpoint_delete_verb,
	&checkpoint_watch_verb,
	NULL,
};

const ax_group_spec ax_group_checkpoint = {
	.name = "checkpoint",
	.summary = "Save and restore sandbox checkpoints",
	.verbs = checkpoint_verbs,
};
