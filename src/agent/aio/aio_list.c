/* POST /v1/file/list: a directory's entries, optionally recursive, filtered
 * and sorted. Symbolic links are classified by their target but never
 * followed down, so a link loop cannot make a listing endless. */
#include <dirent.h>
#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/aio/aio_common.h"
#include "lib/timeutil.h"

/* Past this many entries a listing stops and says "truncated", as AIO does. */
#define LIST_MAX 10000
#define LIST_OP "list"

struct entry {
	char *name;         /* points into path */
	char *path;
	bool dir;
	long long size;
	struct timespec mtime;
	mode_t mode;
};

enum sort_key { BY_NAME, BY_SIZE, BY_MODIFIED, BY_TYPE };

struct listing {
	struct entry *v;
	size_t n, cap;
	bool truncated;
	bool oom;
	/* The request */
	bool recursive, hidden;
	long long max_depth;    /* levels below the root; <= 0: unlimited */
	json_t *types;          /* extensions to keep, or NULL */
	enum sort_key sort;
	bool desc;
};

/* Python's Path.suffix: ".gz" for "a.tar.gz", nothing for ".bashrc" or "a.". */
static const char *extension(const char *name)
{
	const char *dot = strrchr(name, '.');

	return dot && dot != name && dot[1] ? dot : NULL;
}

static bool type_wanted(const struct listing *l, const char *name)
{
	const char *ext = extension(name), *t;
	size_t i;

	if (!l->types || !json_array_size(l->types))
		return true;
	if (!ext)
		return false;
	for (i = 0; i < json_array_size(l->types); i++) {
		t = json_string_value(json_array_get(l->types, i));
		/* ".py" and "py" both name the extension. */
		if (t && strcasecmp(t[0] == '.' ? t + 1 : t, ext + 1) == 0)
			return true;
	}
	return false;
}

static int add(struct listing *l, char *path, size_t name_off, const struct stat *st)
{
	struct entry *e;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;

		e = realloc(l->v, cap * sizeof *e);
		if (!e)
			return -1;
		l->v = e;
		l->cap = cap;
	}
	e = &l->v[l->n++];
	e->path = path;
	e->name = path + name_off;
	e->dir = S_ISDIR(st->st_mode);
	e->size = e->dir ? -1 : (long long)st->st_size;
	e->mtime = st->st_mtim;
	e->mode = st->st_mode;
	return 0;
}

/* List DIR (whose path is PREFIX) at DEPTH, and below it when recursive. */
static void walk(struct listing *l, int dfd, const char *prefix, long long depth)
{
	size_t plen = strlen(prefix);
	struct dirent *d;
	struct stat st, target;
	DIR *dir = fdopendir(dfd);
	bool is_dir, link;
	char *path;
	int sub;

	if (!dir) {
		close(dfd);
		return;
	}
	while (!l->truncated && !l->oom && (d = readdir(dir))) {
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		if (!l->hidden && d->d_name[0] == '.')
			continue;
		if (fstatat(dirfd(dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		link = S_ISLNK(st.st_mode);
		/* A link counts as what it points at (a dangling one as itself). */
		if (link && fstatat(dirfd(dir), d->d_name, &target, 0) == 0)
			st = target;
		is_dir = S_ISDIR(st.st_mode);
		if (is_dir || type_wanted(l, d->d_name)) {
			if (l->n >= LIST_MAX) {
				l->truncated = true;
				break;
			}
			if (asprintf(&path, "%s%s%s", prefix, plen && prefix[plen - 1] == '/' ? "" : "/",
				     d->d_name) < 0 || add(l, path, strlen(path) - strlen(d->d_name), &st) < 0) {
				l->oom = true;
				break;
			}
		}
		if (!is_dir || link || !l->recursive || (l->max_depth > 0 && depth >= l->max_depth))
			continue;
		sub = openat(dirfd(dir), d->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;	/* unreadable subdirectories are listed, not entered */
		if (asprintf(&path, "%s%s%s", prefix, plen && prefix[plen - 1] == '/' ? "" : "/", d->d_name) < 0) {
			close(sub);
			l->oom = true;
			break;
		}
		walk(l, sub, path, depth + 1);
		free(path);
	}
	closedir(dir);
}

static int cmp_time(const struct timespec *a, const struct timespec *b)
{
	if (a->tv_sec != b->tv_sec)
		return a->tv_sec < b->tv_sec ? -1 : 1;
	return (a->tv_nsec > b->tv_nsec) - (a->tv_nsec < b->tv_nsec);
}

static int cmp_entries(const struct entry *a, const struct entry *b, enum sort_key key)
{
	const char *ea, *eb;
	int c = 0;

	switch (key) {
	case BY_SIZE:
		c = (a->size > b->size) - (a->size < b->size);
		break;
	case BY_MODIFIED:
		c = cmp_time(&a->mtime, &b->mtime);
		break;
	case BY_TYPE:
		/* Directories first, then files grouped by extension. */
		c = (int)b->dir - (int)a->dir;
		if (!c) {
			ea = extension(a->name);
			eb = extension(b->name);
			c = strcmp(ea ? ea : "", eb ? eb : "");
		}
		break;
	case BY_NAME:
		break;
	}
	if (!c)
		c = strcmp(a->name, b->name);
	return c ? c : strcmp(a->path, b->path);
}

static int cmp_qsort(const void *a, const void *b, void *arg)
{
	const struct listing *l = arg;
	int c = cmp_entries(a, b, l->sort);

	return l->desc ? -c : c;
}

static json_t *entry_json(const struct entry *e, bool with_size, bool with_perms)
{
	const char *ext = e->dir ? NULL : extension(e->name);
	char when[32], perms[8];

	ax_time_iso_offset(e->mtime.tv_sec, when);
	snprintf(perms, sizeof perms, "%03o", (unsigned)(e->mode & 0777));
	return json_pack("{s:o,s:o,s:b,s:o,s:s,s:o,s:o}", "name", ag_json_text(e->name), "path",
			 ag_json_text(e->path), "is_directory", e->dir, "size",
			 with_size && !e->dir ? json_integer(e->size) : json_null(), "modified_time", when,
			 "permissions", with_perms ? json_string(perms) : json_null(), "extension",
			 ext ? ag_json_text(ext) : json_null());
}

static bool parse_sort(const char *s, enum sort_key *key)
{
	static const char *const names[] = { "name", "size", "modified", "type" };
	size_t i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!s || strcmp(s, names[i]) == 0) {
			*key = s ? (enum sort_key)i : BY_NAME;
			return true;
		}
	return false;
}

static json_t *result_json(const struct listing *l, const char *path, bool with_size, bool with_perms)
{
	json_t *files = json_array(), *o;
	size_t i, dirs = 0;

	for (i = 0; i < l->n; i++) {
		dirs += l->v[i].dir;
		json_array_append_new(files, entry_json(&l->v[i], with_size, with_perms));
	}
	o = json_pack("{s:o,s:o,s:I,s:I,s:I,s:b}", "path", ag_json_text(path), "files", files, "total_count",
		      (json_int_t)l->n, "directory_count", (json_int_t)dirs, "file_count",
		      (json_int_t)(l->n - dirs), "truncated", l->truncated);
	return o;
}

enum MHD_Result aio_file_list(struct ag_req *req)
{
	struct listing l = { 0 };
	struct aio_args a;
	const char *path, *sort;
	bool with_size, with_perms;
	enum MHD_Result rc;
	json_t *types;
	size_t i;
	int fd;

	aio_args_body(req, &a);
	path = aio_arg_str(&a, "path", true);
	l.recursive = aio_arg_bool(&a, "recursive", false);
	l.hidden = aio_arg_bool(&a, "show_hidden", true);
	with_size = aio_arg_bool(&a, "include_size", true);
	with_perms = aio_arg_bool(&a, "include_permissions", false);
	l.desc = aio_arg_bool(&a, "sort_desc", false);
	if (!aio_arg_int(&a, "max_depth", &l.max_depth))
		l.max_depth = 0;
	sort = aio_arg_str(&a, "sort_by", false);
	if (!parse_sort(sort, &l.sort))
		aio_args_invalid(&a, "sort_by", "value_error", "sort_by must be name, size, modified or type");
	types = a.body ? json_object_get(a.body, "file_types") : NULL;
	if (types && !json_is_null(types)) {
		for (i = 0; json_is_array(types) && i < json_array_size(types); i++)
			if (!json_is_string(json_array_get(types, i)))
				break;
		if (!json_is_array(types) || i < json_array_size(types))
			aio_args_invalid(&a, "file_types", "list_type", "Input should be a valid list of strings");
		else
			l.types = types;
	}
	if (!aio_args_ok(&a)) {
		rc = aio_reply_invalid(req, &a);
		aio_args_free(&a);
		return rc;
	}
	if (!aio_path_ok(path)) {
		rc = aio_reply_file_error(req, path, LIST_OP, "invalid_path", 0, "Path must be absolute: %s", path);
		goto out;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		rc = aio_reply_errno(req, path, LIST_OP, errno);
		goto out;
	}
	walk(&l, fd, path, 1);
	if (l.oom) {
		rc = ag_reply_failure(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
		goto out;
	}
	qsort_r(l.v, l.n, sizeof *l.v, cmp_qsort, &l);
	rc = ag_reply_json(req, MHD_HTTP_OK,
			   ag_envelope("Directory listed successfully", result_json(&l, path, with_size, with_perms)));
out:
	for (i = 0; i < l.n; i++)
		free(l.v[i].path);
	free(l.v);
	aio_args_free(&a);
	return rc;
}
