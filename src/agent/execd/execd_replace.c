#include "agent/execd/execd_replace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/execd/execd_file_routes.h"
#include "agent/execd/execd_http.h"
#include "lib/fs.h"

#define CHUNK 65536

/* The temporary file and the text waiting to be written. */
struct rewrite {
	int in, out;
	const char *old, *new;
	size_t old_len, new_len;
	char *buf;              /* bytes read but not yet written */
	size_t len;
	long long count;
};

static int write_all(int fd, const char *p, size_t n)
{
	return ax_write_all(fd, p, n) < 0 ? errno : 0;
}

/* Write out what of r->buf can no longer be part of a match: all of it at
 * the end, else all but the last old_len-1 bytes (a match may straddle the
 * next read). */
static int flush_buf(struct rewrite *r, int at_end)
{
	size_t pos = 0, keep;
	char *hit;
	int e;

	while ((hit = memmem(r->buf + pos, r->len - pos, r->old, r->old_len))) {
		if ((e = write_all(r->out, r->buf + pos, (size_t)(hit - (r->buf + pos)))) ||
		    (e = write_all(r->out, r->new, r->new_len)))
			return e;
		r->count++;
		pos = (size_t)(hit - r->buf) + r->old_len;
	}
	keep = at_end ? 0 : r->old_len - 1;
	if (r->len - pos > keep) {
		if ((e = write_all(r->out, r->buf + pos, r->len - pos - keep)))
			return e;
		pos = r->len - keep;
	}
	memmove(r->buf, r->buf + pos, r->len - pos);
	r->len -= pos;
	return 0;
}

static int stream_replace(struct rewrite *r)
{
	int e;

	r->buf = malloc(CHUNK + r->old_len);
	if (!r->buf)
		return ENOMEM;
	for (;;) {
		ssize_t n = read(r->in, r->buf + r->len, CHUNK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		r->len += (size_t)n;
		if ((e = flush_buf(r, n == 0)))
			return e;
		if (n == 0)
			return 0;
	}
}

/* A temporary file in PATH's directory, so the rename cannot cross file
 * systems; its name in TMP. */
static int open_temp(const char *path, char *tmp, size_t size)
{
	const char *slash = strrchr(path, '/');
	int n = snprintf(tmp, size, "%.*s.%s.replace-XXXXXX", (int)(slash ? slash - path + 1 : 0), path,
			 slash ? slash + 1 : path);

	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return mkostemp(tmp, O_CLOEXEC);
}

int ag_replace_in_file(const char *path, const char *old, size_t old_len, const char *new, size_t new_len,
		       long long *replaced)
{
	struct rewrite r = { -1, -1, old, new, old_len, new_len, NULL, 0, 0 };
	char tmp[4096] = "";
	struct stat st;
	int e = 0;

	*replaced = 0;
	r.in = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (r.in < 0)
		return errno;
	if (fstat(r.in, &st) < 0)
		e = errno;
	else if (!S_ISREG(st.st_mode))
		e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
	else if ((r.out = open_temp(path, tmp, sizeof tmp)) < 0)
		e = errno;
	if (!e)
		e = stream_replace(&r);
	/* The file keeps who owns it and its mode, as an edit in place would. */
	if (!e && r.count && (fchown(r.out, st.st_uid, st.st_gid) < 0 || fchmod(r.out, st.st_mode & 07777) < 0))
		e = errno;
	if (!e && r.count && rename(tmp, path) < 0)
		e = errno;
	if (r.out >= 0 && (e || !r.count))
		unlink(tmp);
	if (r.out >= 0)
		close(r.out);
	close(r.in);
	free(r.buf);
	if (!e)
		*replaced = r.count;
	return e;
}

/* One ReplaceFileContentItem: old a non-empty string, new a string. */
static int item_ok(json_t *item, char *msg, size_t size)
{
	json_t *old = json_object_get(item, "old"), *new = json_object_get(item, "new");

	if (!json_is_object(item))
		return ag_msg_fail(msg, size, "each value must be an object {old, new}");
	if (!json_is_string(old) || json_string_length(old) == 0)
		return ag_msg_fail(msg, size, "old must be a non-empty string");
	if (!json_is_string(new))
		return ag_msg_fail(msg, size, "new must be a string");
	return 0;
}

static int verbose_query(const struct ag_req *req)
{
	const char *v = ag_query(req, "verbose", NULL);

	return v && (strcmp(v, "true") == 0 || strcmp(v, "1") == 0);
}

/* Every item is checked before any file changes, so a bad request changes nothing. */
static enum MHD_Result check_items(struct ag_req *req, json_t *o)
{
	const char *path;
	json_t *item;
	char msg[256];

	if (!json_is_object(o))
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST,
				      "the body must map paths to {old, new}");
	json_object_foreach(o, path, item) {
		if (!*path)
			return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST, "a path must not be empty");
		if (item_ok(item, msg, sizeof msg) < 0)
			return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST, "%s: %s", path, msg);
	}
	return MHD_YES;
}

/* A file that cannot be replaced in: what is missing or not a file is the
 * request's fault (400: the spec declares no 404 here), the rest ours. */
static enum MHD_Result replace_error(struct ag_req *req, const char *path, int e)
{
	if (e == ENOENT || e == ENOTDIR)
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_NOT_FOUND, "file not found: %s", path);
	if (e == EISDIR || e == EINVAL)
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_FILE, "not a regular file: %s", path);
	return ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "error replacing in %s: %s", path,
			      strerror(e));
}

enum MHD_Result ag_execd_files_replace(struct ag_req *req)
{
	enum MHD_Result rc = MHD_NO;
	json_t *o = ag_execd_body_json(req, &rc), *item, *counts;
	const char *path;

	if (!o)
		return rc;
	rc = check_items(req, o);
	if (req->responded) {
		json_decref(o);
		return rc;
	}
	counts = json_object();
	json_object_foreach(o, path, item) {
		json_t *old = json_object_get(item, "old"), *new = json_object_get(item, "new");
		char *abs = ag_abs_path(path);
		long long n = 0;
		int e = abs ? ag_replace_in_file(abs, json_string_value(old), json_string_length(old),
						 json_string_value(new), json_string_length(new), &n)
			    : ENOMEM;

		free(abs);
		if (e) {
			json_decref(counts);
			rc = replace_error(req, path, e);
			json_decref(o);
			return rc;
		}
		json_object_set_new(counts, path, json_pack("{s:I}", "replacedCount", (json_int_t)n));
	}
	json_decref(o);
	if (verbose_query(req))
		return ag_reply_json(req, MHD_HTTP_OK, counts);
	json_decref(counts);
	return ag_reply_empty(req, MHD_HTTP_OK);
}
