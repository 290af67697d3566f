#include "agent/execd/execd_dirs.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/execd/execd_fileinfo.h"
#include "agent/execd/execd_http.h"
#include "agent/execd/execd_perm.h"
#include "agent/execd/execd_rmtree.h"
#include "lib/fs.h"

/* Length of the first missing ancestor of ABS (itself included), 0 if it exists. */
static size_t first_missing(const char *abs)
{
	char *cur = strdup(abs);
	size_t len = 0;
	struct stat st;

	while (cur && strcmp(cur, "/") != 0 && stat(cur, &st) < 0) {
		char *slash = strrchr(cur, '/');

		len = strlen(cur);
		*(slash == cur ? slash + 1 : slash) = '\0';
	}
	free(cur);
	return len;
}

/* chown every directory created, from the prefix of length FROM down to ABS. */
static int chown_created(char *abs, size_t from, const struct ag_perm *p)
{
	size_t i, n = strlen(abs);

	for (i = from; i <= n; i++) {
		char saved = abs[i];
		int rc;

		if (saved != '/' && saved != '\0')
			continue;
		abs[i] = '\0';
		rc = chown(abs, p->uid, p->gid);
		abs[i] = saved;
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* mkdir -p; owner and group go to the directories it creates, the mode to
 * PATH itself if it is new (the official execd's rules). 0, or -1 with MSG. */
static int make_dir(const char *path, const struct ag_perm *p, char *msg, size_t size)
{
	char *abs = ag_abs_path(path);
	size_t created;
	ax_error err;
	int rc = -1;

	if (!abs) {
		snprintf(msg, size, "invalid path");
		return -1;
	}
	created = first_missing(abs);
	if (ax_mkdir_p(abs, 0777, &err) < 0)
		snprintf(msg, size, "%s", err.message);
	else if (created && (p->uid != (uid_t)-1 || p->gid != (gid_t)-1) && chown_created(abs, created, p) < 0)
		snprintf(msg, size, "chown %s: %s", path, strerror(errno));
	else if (created && p->mode >= 0 && chmod(abs, (mode_t)p->mode) < 0)
		snprintf(msg, size, "chmod %s: %s", path, strerror(errno));
	else
		rc = 0;
	free(abs);
	return rc;
}

enum MHD_Result ag_execd_dirs_make(struct ag_req *req)
{
	json_error_t jerr;
	json_t *o = json_loadb(req->body, req->body_len, 0, &jerr), *value;
	enum MHD_Result rc = MHD_NO;
	const char *path;
	char msg[1024];

	if (!o || !json_is_object(o)) {
		json_decref(o);
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST,
				      "error parsing request, MAYBE invalid body format. %s",
				      o ? "the body must map paths to permissions" : jerr.text);
	}
	json_object_foreach(o, path, value) {
		struct ag_perm p;

		if (ag_perm_parse(value, &p, msg, sizeof msg) < 0) {
			rc = ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST, "%s: %s", path, msg);
			break;
		}
		if (make_dir(path, &p, msg, sizeof msg) < 0) {
			rc = ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME,
					    "error creating directory %s. %s", path, msg);
			break;
		}
	}
	if (!path)
		rc = ag_reply_empty(req, MHD_HTTP_OK);
	json_decref(o);
	return rc;
}

enum MHD_Result ag_execd_dirs_remove(struct ag_req *req)
{
	size_t n, i;
	int bad;
	const char **paths = ag_query_all(req, "path", &n, &bad);
	enum MHD_Result rc = MHD_NO;

	if (!paths)
		return ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "out of memory");
	if (bad) {
		free(paths);
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST, "a path must not contain NUL");
	}
	for (i = 0; i < n; i++) {
		char *abs = ag_abs_path(paths[i]);
		int e = !abs ? EINVAL : strcmp(abs, "/") == 0 ? EBUSY : ag_rmtree(abs) < 0 ? errno : 0;

		free(abs);
		if (e) {
			rc = ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME,
					    "error removing directory %s. %s", paths[i], strerror(e));
			break;
		}
	}
	if (i == n)
		rc = ag_reply_empty(req, MHD_HTTP_OK);
	free(paths);
	return rc;
}

static int list_one(void *cls, const char *path, const struct stat *st, int depth)
{
	return json_array_append_new(cls, ag_fileinfo(path, st)) == 0 ? 0 : -1;
}

/* ?depth=: an integer >= 0, 1 when absent. -1 when invalid. */
static int parse_depth(const char *s)
{
	char *end;
	long v;

	if (!s || !*s)
		return 1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0)
		return -1;
	return v > INT_MAX ? INT_MAX : (int)v;
}

enum MHD_Result ag_execd_dirs_list(struct ag_req *req)
{
	int bad = 0, depth;
	const char *path = ag_query(req, "path", &bad), *raw = ag_query(req, "depth", NULL);
	char *abs, *where = NULL;
	enum MHD_Result rc;
	struct stat st;
	json_t *out;

	if (!path || !*path)
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_MISSING_QUERY, "missing query parameter 'path'");
	if (bad)
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST, "a path must not contain NUL");
	depth = parse_depth(raw);
	if (depth < 0)
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST,
				      "invalid query parameter 'depth': %s", raw);
	abs = ag_abs_path(path);
	if (!abs)
		return ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "out of memory");
	if (lstat(abs, &st) < 0) {
		rc = ag_execd_fs_error(req, "lstat", path, errno);
	} else if (S_ISLNK(st.st_mode)) {
		/* Listing through a link would show another tree than the one asked for. */
		rc = ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST,
				    "path is a symbolic link, refusing to traverse: %s", abs);
	} else if (!S_ISDIR(st.st_mode)) {
		rc = ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST, "path is not a directory: %s", abs);
	} else {
		out = json_array();
		if (ag_walk(abs, depth, list_one, out, &where) < 0) {
			rc = ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME,
					    "error listing directory %s. %s: %s", abs, where ? where : abs,
					    strerror(errno));
			json_decref(out);
		} else {
			rc = ag_reply_json(req, MHD_HTTP_OK, out);
		}
	}
	free(where);
	free(abs);
	return rc;
}
