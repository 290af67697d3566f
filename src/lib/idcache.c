/* The completion id cache: pure JSON edits, one atomic file and its journal. */
#include "lib/idcache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fs.h"

#define CACHE_VERSION 1

static const char *list_name(ax_idkind kind)
{
	return kind == AX_ID_SANDBOX ? "sandboxes" : "checkpoints";
}

static const char *stamp_name(ax_idkind kind)
{
	return kind == AX_ID_SANDBOX ? "sandboxes_at" : "checkpoints_at";
}

json_t *ax_idcache_new(const char *domain)
{
	return json_pack("{s:i, s:s, s:[], s:[]}", "version", CACHE_VERSION, "domain", domain ? domain : "local",
			 "sandboxes", "checkpoints");
}

static char *cache_file(const char *home, const char *name)
{
	char *dir = ax_path_join(home, "cache"), *path;

	if (!dir)
		return NULL;
	path = ax_path_join(dir, name);
	free(dir);
	return path;
}

static char *cache_path(const char *home)
{
	return cache_file(home, "ids.json");
}

static char *journal_path(const char *home)
{
	return cache_file(home, "ids.log");
}

/* A cache we can trust the shape of: the right version and both lists. */
static bool well_formed(const json_t *c)
{
	return json_is_object(c) && json_integer_value(json_object_get(c, "version")) == CACHE_VERSION &&
	       json_is_string(json_object_get(c, "domain")) && json_is_array(json_object_get(c, "sandboxes")) &&
	       json_is_array(json_object_get(c, "checkpoints"));
}

/* Apply the journal's edits for CACHE's domain, in order. A line that is
 * not a whole edit (the torn end of an interrupted append) is skipped. */
static void replay(json_t *cache, const char *home)
{
	const char *domain = json_string_value(json_object_get(cache, "domain"));
	char *path = journal_path(home), *text = NULL, *line, *end;
	size_t len = 0;
	ax_error err;

	if (!path || ax_read_file(path, &text, &len, &err) < 0) {
		free(path);
		return;
	}
	for (line = text; line < text + len; line = end + 1) {
		json_t *edit;

		end = memchr(line, '\n', (size_t)(text + len - line));
		if (!end)
			break;      /* no newline: not a finished append */
		edit = json_loadb(line, (size_t)(end - line), 0, NULL);
		if (edit && strcmp(json_string_value(json_object_get(edit, "domain")) ?: "", domain ?: "") == 0)
			ax_idcache_apply(cache, edit);
		json_decref(edit);
	}
	free(text);
	free(path);
}

json_t *ax_idcache_load(const char *home, const char *domain)
{
	char *path = cache_path(home), *text = NULL;
	size_t len = 0;
	ax_error err;
	json_t *c = NULL;

	if (path && ax_read_file(path, &text, &len, &err) == 0)
		c = json_loadb(text, len, 0, NULL);
	free(text);
	free(path);
	if (!well_formed(c) ||
	    (domain && strcmp(json_string_value(json_object_get(c, "domain")), domain) != 0)) {
		json_decref(c);
		c = ax_idcache_new(domain);
	}
	if (c)
		replay(c, home);
	return c;
}

int ax_idcache_save(const char *home, const json_t *cache, ax_error *err)
{
	char *path = cache_path(home), *text;
	int rc = -1;

	if (!path)
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	text = json_dumps(cache, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (!text)
		ax_fail(err, AX_CODE_NOMEM, "out of memory");
	else if (ax_mkdir_parent(path, 0700, err) == 0)
		rc = ax_write_file_replace(path, text, strlen(text), 0600, err);
	free(text);
	free(path);
	if (rc == 0 && (path = journal_path(home)) != NULL) {
		/* Emptied in place, never created: its edits are in ids.json now. */
		if (truncate(path, 0) < 0 && errno != ENOENT)
			rc = ax_fail(err, AX_CODE_IO, "cannot empty %s: %s", path, strerror(errno));
		free(path);
	}
	return rc;
}

int ax_idcache_append(const char *home, const char *domain, const json_t *edit, ax_error *err)
{
	char *path = journal_path(home), *text = NULL, *line = NULL;
	json_t *stamped = json_copy((json_t *)edit);
	struct stat st;
	int fd = -1, rc = -1;

	if (!path || !stamped || json_object_set_new(stamped, "domain", json_string(domain ? domain : "local")) < 0 ||
	    !(text = json_dumps(stamped, JSON_COMPACT | JSON_PRESERVE_ORDER)) || asprintf(&line, "%s\n", text) < 0) {
		line = NULL;
		ax_fail(err, AX_CODE_NOMEM, "out of memory");
		goto out;
	}
	/* One write with O_APPEND: concurrent appends do not interleave. The
	 * directory is made only when it is missing, not on every append. */
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 && errno == ENOENT) {
		if (ax_mkdir_parent(path, 0700, err) < 0)
			goto out;
		fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	}
	if (fd < 0 || ax_write_all(fd, line, strlen(line)) < 0 || fstat(fd, &st) < 0) {
		ax_fail(err, AX_CODE_IO, "cannot write %s: %s", path, strerror(errno));
		goto out;
	}
	rc = 0;
	if (st.st_size > AX_IDCACHE_JOURNAL_MAX) {
		json_t *cache = ax_idcache_load(home, domain);

		rc = cache ? ax_idcache_save(home, cache, err) : ax_fail(err, AX_CODE_NOMEM, "out of memory");
		json_decref(cache);
	}
out:
	if (fd >= 0)
		close(fd);
	free(line);
	free(text);
	json_decref(stamped);
	free(path);
	return rc;
}

/* The index of the entry with ID in LIST, or -1. */
static long find(const json_t *list, const char *id)
{
	size_t i;
	json_t *e;

	json_array_foreach(list, i, e)
		if (strcmp(json_string_value(json_object_get(e, "id")) ?: "", id) == 0)
			return (long)i;
	return -1;
}

static void remove_id(json_t *cache, ax_idkind kind, const char *id)
{
	json_t *list = json_object_get(cache, list_name(kind));
	long i = id ? find(list, id) : -1;

	if (i >= 0)
		json_array_remove(list, (size_t)i);
}

/* A copy of FIELD of ROW when it is a string, else null. */
static json_t *string_field(const json_t *row, const char *field)
{
	const json_t *v = json_object_get(row, field);

	return json_is_string(v) ? json_copy((json_t *)v) : json_null();
}

void ax_idcache_set_sandboxes(json_t *cache, const json_t *rows, time_t now)
{
	json_t *list = json_array(), *row;
	size_t i;

	json_array_foreach(rows, i, row)
		if (json_is_string(json_object_get(row, "id")))
			json_array_append_new(list, json_pack("{s:o, s:o}", "id", string_field(row, "id"), "state",
							      string_field(row, "state")));
	json_object_set_new(cache, "sandboxes", list);
	json_object_set_new(cache, stamp_name(AX_ID_SANDBOX), json_integer((json_int_t)now));
}

void ax_idcache_put_sandbox(json_t *cache, const char *id, const char *state)
{
	json_t *list = json_object_get(cache, "sandboxes");
	long i;

	if (!id || !*id || !list)
		return;
	i = find(list, id);
	if (i < 0) {
		json_array_append_new(list, json_pack("{s:s, s:o}", "id", id, "state",
						      state ? json_string(state) : json_null()));
		return;
	}
	if (state)
		json_object_set_new(json_array_get(list, (size_t)i), "state", json_string(state));
}

void ax_idcache_remove_sandbox(json_t *cache, const char *id)
{
	remove_id(cache, AX_ID_SANDBOX, id);
}

static json_t *checkpoint_entry(const char *id, const char *name, const char *sandbox_id)
{
	return json_pack("{s:s, s:o, s:o}", "id", id, "name", name ? json_string(name) : json_null(), "sandbox_id",
			 sandbox_id ? json_string(sandbox_id) : json_null());
}

void ax_idcache_set_checkpoints(json_t *cache, const json_t *rows, const char *sandbox_id, time_t now)
{
	json_t *list = json_object_get(cache, "checkpoints"), *row;
	size_t i;

	if (!list)
		return;
	if (!sandbox_id) {
		json_array_clear(list);
		json_object_set_new(cache, stamp_name(AX_ID_CHECKPOINT), json_integer((json_int_t)now));
	} else {
		for (i = json_array_size(list); i-- > 0;) {
			const char *s = json_string_value(json_object_get(json_array_get(list, i), "sandbox_id"));

			if (s && strcmp(s, sandbox_id) == 0)
				json_array_remove(list, i);
		}
	}
	json_array_foreach(rows, i, row) {
		const char *id = json_string_value(json_object_get(row, "id"));

		if (id && find(list, id) < 0)
			json_array_append_new(list, checkpoint_entry(id, json_string_value(json_object_get(row, "name")),
								     json_string_value(json_object_get(row, "sandbox_id"))));
	}
}

void ax_idcache_put_checkpoint(json_t *cache, const char *id, const char *name, const char *sandbox_id)
{
	json_t *list = json_object_get(cache, "checkpoints");
	long i;

	if (!id || !*id || !list)
		return;
	i = find(list, id);
	if (i >= 0)
		json_array_set_new(list, (size_t)i, checkpoint_entry(id, name, sandbox_id));
	else
		json_array_append_new(list, checkpoint_entry(id, name, sandbox_id));
}

void ax_idcache_remove_checkpoint(json_t *cache, const char *id)
{
	remove_id(cache, AX_ID_CHECKPOINT, id);
}

bool ax_idcache_apply(json_t *cache, const json_t *edit)
{
	const char *op = json_string_value(json_object_get(edit, "op")) ?: "";
	const char *id = json_string_value(json_object_get(edit, "id"));
	const char *name = json_string_value(json_object_get(edit, "name"));
	const char *sandbox_id = json_string_value(json_object_get(edit, "sandbox_id"));
	const char *state = json_string_value(json_object_get(edit, "state"));

	if (!id)
		return false;
	if (strcmp(op, "put_sandbox") == 0)
		ax_idcache_put_sandbox(cache, id, state);
	else if (strcmp(op, "remove_sandbox") == 0)
		ax_idcache_remove_sandbox(cache, id);
	else if (strcmp(op, "put_checkpoint") == 0)
		ax_idcache_put_checkpoint(cache, id, name, sandbox_id);
	else if (strcmp(op, "remove_checkpoint") == 0)
		ax_idcache_remove_checkpoint(cache, id);
	else
		return false;
	return true;
}

bool ax_idcache_stale(const json_t *cache, ax_idkind kind, time_t now, long max_age)
{
	const json_t *at = json_object_get(cache, stamp_name(kind));

	if (!json_is_integer(at))
		return true;
	/* A stamp from the future (clock moved back) counts as stale too. */
	return now < (time_t)json_integer_value(at) || now - (time_t)json_integer_value(at) > max_age;
}

/* Descriptions come from the server (checkpoint names): no control
 * characters may break the one-candidate-per-line answer. */
static void print_clean(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, out);
}

size_t ax_idcache_print(FILE *out, const json_t *cache, ax_idkind kind, const char *prefix)
{
	const json_t *list = json_object_get(cache, list_name(kind)), *e;
	size_t i, n = 0, plen = prefix ? strlen(prefix) : 0;

	json_array_foreach(list, i, e) {
		const char *id = json_string_value(json_object_get(e, "id"));
		const char *desc = json_string_value(json_object_get(e, kind == AX_ID_SANDBOX ? "state" : "name"));

		if (!id || strncmp(id, prefix ? prefix : "", plen) != 0 || strpbrk(id, "\t\n\r "))
			continue;
		fprintf(out, "%s\t", id);
		print_clean(out, desc ? desc : kind == AX_ID_SANDBOX ? "sandbox" : "checkpoint");
		fputc('\n', out);
		n++;
	}
	return n;
}
