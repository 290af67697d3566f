#include "agent/execd/execd_file_routes.h"

#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/execd/execd_fileinfo.h"
#include "agent/execd/execd_http.h"
#include "agent/execd/execd_perm.h"
#include "lib/fs.h"

static enum MHD_Result reply_nomem(struct ag_req *req)
{
	return ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "out of memory");
}

static enum MHD_Result reply_nul(struct ag_req *req)
{
	return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST, "a path must not contain NUL");
}

enum MHD_Result ag_execd_files_info(struct ag_req *req)
{
	size_t n, i;
	int bad;
	const char **paths = ag_query_all(req, "path", &n, &bad);
	json_t *out;

	if (!paths)
		return reply_nomem(req);
	if (bad) {
		free(paths);
		return reply_nul(req);
	}
	out = json_object();
	for (i = 0; i < n; i++) {
		char *abs = ag_abs_path(paths[i]);
		struct stat st;
		enum MHD_Result rc;

		if (abs && lstat(abs, &st) == 0) {
			json_object_set_new(out, paths[i], ag_fileinfo(abs, &st));
			free(abs);
			continue;
		}
		rc = abs ? ag_execd_fs_error(req, "lstat", paths[i], errno)
			 : ag_execd_fs_error(req, "lstat", paths[i], *paths[i] ? ENOMEM : ENOENT);
		free(abs);
		free(paths);
		json_decref(out);
		return rc;
	}
	free(paths);
	return ag_reply_json(req, MHD_HTTP_OK, out);
}

/* Files only: a missing one is fine, a directory is an error. */
static int remove_file(const char *path, char *why, size_t size)
{
	char *abs = ag_abs_path(path);
	struct stat st;
	int rc = 0;

	if (!abs) {
		snprintf(why, size, "invalid path");
		return -1;
	}
	if (stat(abs, &st) < 0) {
		if (errno != ENOENT && errno != ENOTDIR) {
			snprintf(why, size, "%s", strerror(errno));
			rc = -1;
		}
	} else if (S_ISDIR(st.st_mode)) {
		snprintf(why, size, "path is a directory: %s", path);
		rc = -1;
	} else if (unlink(abs) < 0 && errno != ENOENT) {
		snprintf(why, size, "failed to remove file: %s", strerror(errno));
		rc = -1;
	}
	free(abs);
	return rc;
}

enum MHD_Result ag_execd_files_delete(struct ag_req *req)
{
	size_t n, i;
	int bad;
	const char **paths = ag_query_all(req, "path", &n, &bad);
	char why[512];

	if (!paths)
		return reply_nomem(req);
	if (bad) {
		free(paths);
		return reply_nul(req);
	}
	for (i = 0; i < n; i++) {
		if (remove_file(paths[i], why, sizeof why) < 0) {
			enum MHD_Result rc = ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME,
							    "error removing file %s. %s", paths[i], why);

			free(paths);
			return rc;
		}
	}
	free(paths);
	return ag_reply_empty(req, MHD_HTTP_OK);
}

struct search {
	const char *pattern;
	json_t *found;
};

static int search_one(void *cls, const char *path, const struct stat *st, int depth)
{
	struct search *s = cls;
	const char *base = strrchr(path, '/');

	/* Files only, matched on the base name, as the official execd does. */
	if (S_ISDIR(st->st_mode))
		return 0;
	base = base ? base + 1 : path;
	if (fnmatch(s->pattern, base, 0) == 0)
		json_array_append_new(s->found, ag_fileinfo(path, st));
	return 0;
}

enum MHD_Result ag_execd_files_search(struct ag_req *req)
{
	int bad = 0, bad_pattern = 0;
	const char *path = ag_query(req, "path", &bad), *pattern = ag_query(req, "pattern", &bad_pattern);
	struct search s = { pattern && *pattern ? pattern : "**", NULL };
	struct stat st;
	char *abs, *where = NULL;
	enum MHD_Result rc;

	if (!path || !*path)
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_MISSING_QUERY, "missing query parameter 'path'");
	if (bad || bad_pattern)
		return reply_nul(req);
	abs = ag_abs_path(path);
	if (!abs)
		return reply_nomem(req);
	if (stat(abs, &st) < 0) {
		rc = ag_execd_fs_error(req, "stat", path, errno);
		free(abs);
		return rc;
	}
	s.found = json_array();
	if (!S_ISDIR(st.st_mode)) {
		search_one(&s, abs, &st, 0);
	} else if (ag_walk(abs, INT_MAX, search_one, &s, &where) < 0) {
		rc = ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME,
				    "error searching files. error accessing path %s: %s", where ? where : abs,
				    strerror(errno));
		free(where);
		free(abs);
		json_decref(s.found);
		return rc;
	}
	free(abs);
	return ag_reply_json(req, MHD_HTTP_OK, s.found);
}

enum MHD_Result ag_execd_files_chmod(struct ag_req *req)
{
	enum MHD_Result rc = MHD_NO;
	json_t *o = ag_execd_body_json(req, &rc), *value;
	const char *path;
	char msg[512];

	if (!o)
		return rc;
	if (!json_is_object(o)) {
		json_decref(o);
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST,
				      "the body must map paths to permissions");
	}
	json_object_foreach(o, path, value) {
		struct ag_perm p;
		char *abs;
		int e;

		if (ag_perm_parse(value, &p, msg, sizeof msg) < 0) {
			rc = ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST, "%s: %s", path, msg);
			json_decref(o);
			return rc;
		}
		abs = ag_abs_path(path);
		e = !abs ? EINVAL : ag_perm_apply(abs, -1, &p) < 0 ? errno : 0;
		free(abs);
		if (e) {
			rc = ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME,
					    "error changing permissions for %s. %s", path, strerror(e));
			json_decref(o);
			return rc;
		}
	}
	json_decref(o);
	return ag_reply_empty(req, MHD_HTTP_OK);
}

/* One RenameFileItem: the source must exist, the destination must not; the
 * destination's directory is created. 0, or an errno value. */
static int move_one(const char *src, const char *dest, int *missing)
{
	char *a = ag_abs_path(src), *b = ag_abs_path(dest);
	struct stat st;
	int e = 0;

	*missing = 0;
	if (!a || !b)
		e = EINVAL;
	else if (lstat(a, &st) < 0)
		*missing = e = errno;
	else if (ax_mkdir_parent(b, 0755, NULL) < 0)
		e = errno ? errno : EIO;
	else if (lstat(b, &st) == 0)
		e = EEXIST;
	else if (rename(a, b) < 0)
		e = errno;
	free(a);
	free(b);
	return e;
}

enum MHD_Result ag_execd_files_mv(struct ag_req *req)
{
	enum MHD_Result rc = MHD_NO;
	json_t *o = ag_execd_body_json(req, &rc), *item;
	size_t i;

	if (!o)
		return rc;
	if (!json_is_array(o)) {
		json_decref(o);
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST,
				      "the body must be an array of {src, dest}");
	}
	json_array_foreach(o, i, item) {
		const char *src = json_string_value(json_object_get(item, "src"));
		const char *dest = json_string_value(json_object_get(item, "dest"));
		int missing, e;

		if (!src || !dest || !*src || !*dest) {
			json_decref(o);
			return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST,
					      "each item needs src and dest");
		}
		e = move_one(src, dest, &missing);
		if (e) {
			rc = missing ? ag_execd_fs_error(req, "source path", src, e)
				     : ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME,
						      "error moving %s to %s: %s", src, dest, strerror(e));
			json_decref(o);
			return rc;
		}
	}
	json_decref(o);
	return ag_reply_empty(req, MHD_HTTP_OK);
}
