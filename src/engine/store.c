/*
 * Sandbox records: one directory per sandbox under $ALLOX_HOME/engine/sandboxes,
 * holding record.json (written atomically) and the sandbox's layers. The
 * in-memory map mirrors the directories so a restarted engine can re-adopt.
 */
#include "engine/engine.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fs.h"

char *ax_store_dir(const ax_engine *e, const char *id)
{
	return ax_path_join(e->sandboxes_dir, id);
}

static int store(ax_engine *e, json_t *record, bool durable, ax_error *err)
{
	const char *id = json_string_value(json_object_get(record, "id"));
	char *dir = ax_store_dir(e, id), *path = dir ? ax_path_join(dir, "record.json") : NULL;
	char *text = json_dumps(record, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	int rc;

	if (!dir || !path || !text)
		rc = ax_fail(err, AX_CODE_NOMEM, "out of memory");
	else if (durable)
		rc = ax_write_file_atomic(path, text, strlen(text), 0600, err);
	else
		rc = ax_write_file_replace(path, text, strlen(text), 0600, err);
	free(text);
	free(path);
	free(dir);
	return rc;
}

int ax_store_save(ax_engine *e, json_t *record, ax_error *err)
{
	return store(e, record, true, err);
}

int ax_store_save_nosync(ax_engine *e, json_t *record, ax_error *err)
{
	return store(e, record, false, err);
}

int ax_store_load(ax_engine *e, ax_error *err)
{
	DIR *d;
	struct dirent *de;

	if (ax_mkdir_p(e->sandboxes_dir, 0700, err) < 0)
		return -1;
	d = opendir(e->sandboxes_dir);
	if (!d)
		return ax_fail(err, AX_CODE_IO, "cannot read %s", e->sandboxes_dir);
	while ((de = readdir(d))) {
		char *dir, *path;
		json_t *rec;

		if (de->d_name[0] == '.')
			continue;
		dir = ax_store_dir(e, de->d_name);
		path = dir ? ax_path_join(dir, "record.json") : NULL;
		rec = path ? json_load_file(path, 0, NULL) : NULL;
		if (rec && json_is_object(rec) &&
		    strcmp(json_string_value(json_object_get(rec, "id")) ?: "", de->d_name) == 0)
			json_object_set(e->sandboxes, de->d_name, rec);
		else
			ax_engine_log(e, "ignoring %s: no valid record.json", dir ? dir : de->d_name);
		json_decref(rec);
		free(path);
		free(dir);
	}
	closedir(d);
	return 0;
}
