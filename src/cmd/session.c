/* session current | use | clear */
#include "cmd/command.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/common.h"
#include "lib/session.h"
#include "cmd/groups.h"

#define NO_SESSION_HINT "Run: allox-cli sandbox create  OR  allox-cli session use <id>"

static int session_result(ax_result *res, const ax_session *s, const char *title)
{
	res->kind = AX_RESULT_DATA;
	res->data = ax_session_to_json(s);
	res->view.title = title;
	return 0;
}

static int cmd_session_current(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	ax_session s;
	bool found;

	if (ax_session_get(ctx->home, &s, &found, err) < 0)
		return -1;
	if (!found)
		return ax_fail(err, AX_CODE_NO_SESSION, "No current session. " NO_SESSION_HINT);
	session_result(res, &s, "Current Session");
	ax_session_free(&s);
	return 0;
}

static char *lookup_aio_url(ax_ctx *ctx, const char *id)
{
	const char *domain = ax_config_string(ctx->config, "domain");
	ax_lifecycle lc;
	ax_error err;
	char *url = NULL;

	if (!domain || !*domain || strcmp(domain, "local") == 0) {
		char *sock = ax_local_socket_path(ctx->home);
		bool running = sock && access(sock, F_OK) == 0;

		free(sock);
		if (!running)
			return NULL;
	}
	if (ax_open_lifecycle(ctx, &lc, &err) < 0)
		return NULL;
	url = ax_aio_url_or_null(&lc, ctx->config, id);
	ax_lc_close(&lc);
	return url;
}

static int cmd_session_use(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	const char *id = ax_arg_string(args, "SANDBOX_ID");
	char *url;
	ax_session s;
	size_t i;
	int rc;

	if (!id[0] || strlen(id) > 256)
		return ax_fail(err, AX_CODE_USAGE, "invalid sandbox id '%s'", id);
	for (i = 0; id[i]; i++)
		if ((unsigned char)id[i] < 0x20 || id[i] == '/')
			return ax_fail(err, AX_CODE_USAGE, "invalid sandbox id: control characters and '/' are not allowed");
	/* The AIO URL is informational (commands resolve the endpoint afresh each
	 * time), so a failed lookup is no error, and this never starts an engine. */
	url = lookup_aio_url(ctx, id);
	rc = ax_session_set(ctx->home, id, url ? url : "", &s, err);
	free(url);
	if (rc < 0)
		return -1;
	session_result(res, &s, "Session Updated");
	ax_session_free(&s);
	return 0;
}

static int cmd_session_clear(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	bool cleared;

	if (ax_session_clear(ctx->home, NULL, &cleared, err) < 0)
		return -1;
	if (!cleared)
		return ax_fail(err, AX_CODE_NO_SESSION, "No current session to clear.");
	res->kind = AX_RESULT_DATA;
	res->data = json_pack("{s:s}", "status", "cleared");
	res->view.title = "Session Cleared";
	return 0;
}

/* The table entries of the verbs above (cmd/command.h). */

static const ax_positional_spec session_use_positionals[] = {
	{ .name = "SANDBOX_ID", .arity = AX_POS_REQUIRED, .kind = AX_VAL_SANDBOX_ID,
	  .help = "the sandbox later commands use by default" },
	AX_POSITIONALS_END,
};

static const ax_command_spec session_current_verb = {
	.group = "session", .name = "current", .summary = "Show the current session",
	.formats = AX_OBJECT_FORMATS, .default_format = AX_FMT_TABLE, .handler = cmd_session_current,
};

static const ax_command_spec session_use_verb = {
	.group = "session", .name = "use", .summary = "Make a sandbox the current session",
	.positionals = session_use_positionals, .formats = AX_OBJECT_FORMATS, .default_format = AX_FMT_TABLE,
	.handler = cmd_session_use,
};

static const ax_command_spec session_clear_verb = {
	.group = "session", .name = "clear", .summary = "Forget the current session",
	.formats = AX_OBJECT_FORMATS, .default_format = AX_FMT_TABLE, .handler = cmd_session_clear,
};

static const ax_command_spec *const session_verbs[] = {
	&session_current_verb,
	&session_use_verb,
	&session_clear_verb,
	NULL,
};

const ax_group_spec ax_group_session = {
	.name = "session",
	.summary = "Show, choose or clear the current sandbox",
	.verbs = session_verbs,
};
