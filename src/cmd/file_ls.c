/* file ls: one directory of a sandbox through execd's listing, sorted by
 * name. Names are whatever the sandbox holds (newlines, escape sequences):
 * the table renderer shows control bytes as spaces, -o json escapes them,
 * -o raw prints them as they are (one row per line). */
#include <stdlib.h>
#include <string.h>

#include "api/execd_files.h"
#include "cmd/file_common.h"
#include "cmd/verbs.h"
#include "cmd/common.h"

static const char *const ls_columns[] = { "name", "type", "size", "mode", "modified_at", NULL };

static int by_name(const void *a, const void *b)
{
	const char *x = json_string_value(json_object_get(*(json_t *const *)a, "name"));
	const char *y = json_string_value(json_object_get(*(json_t *const *)b, "name"));

	return strcmp(x ? x : "", y ? y : "");
}

/* The row of one FileInfo: its name is the last component of its path. */
static json_t *ls_row(const json_t *e)
{
	const char *path = json_string_value(json_object_get(e, "path"));
	const char *slash = path ? strrchr(path, '/') : NULL;
	const char *name = slash && slash[1] ? slash + 1 : path ? path : "";
	json_t *row = json_object();

	json_object_set_new(row, "name", json_string(name));
	json_object_set(row, "type", json_object_get(e, "type") ?: json_null());
	json_object_set(row, "size", json_object_get(e, "size") ?: json_null());
	json_object_set(row, "mode", json_object_get(e, "mode") ?: json_null());
	json_object_set(row, "modified_at", json_object_get(e, "modified_at") ?: json_null());
	json_object_set(row, "path", json_object_get(e, "path") ?: json_null());
	return row;
}

static int cmd_file_ls(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	const char *path = ax_arg_string(args, "PATH");
	json_t *entries = NULL, *rows, **sorted, *e;
	ax_file_conn c;
	size_t i, n;

	ax_file_conn_init(&c, ctx);
	if (ax_execd_list(c.execd, path, 1, &entries, err) < 0)
		return -1;
	n = json_array_size(entries);
	sorted = calloc(n ? n : 1, sizeof(void *));  /* json_t pointers */
	if (!sorted) {
		json_decref(entries);
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	}
	json_array_foreach(entries, i, e)
		sorted[i] = ls_row(e);
	qsort(sorted, n, sizeof(void *), by_name);
	rows = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(rows, sorted[i]);
	free(sorted);
	json_decref(entries);
	res->kind = AX_RESULT_DATA;
	res->data = rows;
	res->view.title = "Files";
	res->view.columns = ls_columns;
	return 0;
}

/* The table entries of the verbs above (cmd/command.h). */

const ax_command_spec ax_file_ls_verb = {
	.group = "file", .name = "ls", .summary = "List a directory in a sandbox",
	.description = "Sorted by name. Names are shown as the sandbox has them: the table shows control "
	"characters as spaces, -o json escapes them, -o raw prints their bytes (one entry per line: a newline or "
	"tab in a name becomes a space).",
	.positionals = ax_path_positionals,
	.formats = AX_OBJECT_FORMATS | AX_FMT_RAW, .default_format = AX_FMT_TABLE, .target = AX_TARGET_EXECD,
	.handler = cmd_file_ls,
};
