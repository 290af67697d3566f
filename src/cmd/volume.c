/* volume list and volume rm: the local engine's named volumes (its
 * /volumes routes, an allox extension of the lifecycle API). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/target.h"
#include "cmd/command.h"
#include "cmd/groups.h"
#include "lib/http.h"

static const char *const list_columns[] = { "name", "used_by", NULL };

static int cmd_volume_list(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	json_t *doc = NULL, *rows, *v;
	size_t i;

	(void)args;
	if (ax_lc_call(&ctx->target->lc, "GET", "/volumes", NULL, 200, &doc, err) < 0)
		return -1;
	rows = json_array();
	json_array_foreach(json_object_get(doc, "items"), i, v) {
		json_t *users = json_object_get(v, "usedBy");
		json_t *row = json_pack("{s:O, s:O}", "name", json_object_get(v, "name"), "used_by",
					users ? users : json_array());

		json_array_append_new(rows, row);
	}
	json_decref(doc);
	res->kind = AX_RESULT_DATA;
	res->data = rows;
	res->view.title = "Volumes";
	res->view.columns = list_columns;
	return 0;
}

static int cmd_volume_rm(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	const char *name = ax_arg_string(args, "NAME");
	char path[320];

	/* A name is one path segment; the server checks the rest. */
	if (strpbrk(name, "/?#%"))
		return ax_fail(err, AX_CODE_USAGE, "no volume is called %s", name);
	snprintf(path, sizeof path, "/volumes/%s", name);
	if (ax_lc_call(&ctx->target->lc, "DELETE", path, NULL, 204, NULL, err) < 0)
		return -1;
	res->kind = AX_RESULT_DATA;
	res->data = json_pack("{s:s, s:b}", "name", name, "removed", 1);
	res->view.title = "Volume Removed";
	return 0;
}

static const ax_positional_spec volume_rm_positionals[] = {
	{ .name = "NAME", .arity = AX_POS_REQUIRED, .kind = AX_VAL_TEXT, .help = "the named volume to remove" },
	AX_POSITIONALS_END,
};

static const ax_command_spec volume_list_verb = {
	.group = "volume", .name = "list", .summary = "List the named volumes and the sandboxes that mount them",
	.description = "Named volumes (sandbox create -v NAME:/PATH, the lifecycle API's pvc volumes) are "
	"directories the local engine keeps in $ALLOX_HOME/volumes; they outlive their sandboxes and are not in "
	"checkpoints. Other servers have no such list.",
	.formats = AX_OBJECT_FORMATS, .default_format = AX_FMT_TABLE, .target = AX_TARGET_SERVER,
	.handler = cmd_volume_list,
};

static const ax_command_spec volume_rm_verb = {
	.group = "volume", .name = "rm", .summary = "Remove a named volume and its files",
	.description = "Refused while a sandbox mounts it.",
	.positionals = volume_rm_positionals, .formats = AX_OBJECT_FORMATS, .default_format = AX_FMT_TABLE,
	.target = AX_TARGET_SERVER, .handler = cmd_volume_rm,
};

static const ax_command_spec *const volume_verbs[] = {
	&volume_list_verb,
	&volume_rm_verb,
	NULL,
};

const ax_group_spec ax_group_volume = {
	.name = "volume",
	.summary = "List and remove the local engine's named volumes",
	.verbs = volume_verbs,
};
