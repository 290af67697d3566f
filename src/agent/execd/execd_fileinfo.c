#include "agent/execd/execd_fileinfo.h"

#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fs.h"
#include "agent/core/route.h"
#include "lib/timeutil.h"

static const char *type_name(mode_t mode)
{
	if (S_ISLNK(mode))
		return "symlink";
	if (S_ISDIR(mode))
		return "directory";
	if (S_ISREG(mode))
		return "file";
	return "other";
}

static json_t *user_name(uid_t uid)
{
	struct passwd pw, *found = NULL;
	char buf[1024], num[24];

	if (getpwuid_r(uid, &pw, buf, sizeof buf, &found) == 0 && found)
		return json_string(found->pw_name);
	snprintf(num, sizeof num, "%u", (unsigned)uid);
	return json_string(num);
}

static json_t *group_name(gid_t gid)
{
	struct group gr, *found = NULL;
	char buf[1024], num[24];

	if (getgrgid_r(gid, &gr, buf, sizeof buf, &found) == 0 && found)
		return json_string(found->gr_name);
	snprintf(num, sizeof num, "%u", (unsigned)gid);
	return json_string(num);
}

static json_t *rfc3339(time_t t)
{
	char buf[32];

	ax_time_rfc3339(t, buf);
	return json_string(buf);
}

/* 0755 -> 755: the octal digits read as a decimal number. */
static json_int_t mode_digits(mode_t mode)
{
	char buf[8];

	snprintf(buf, sizeof buf, "%o", (unsigned)(mode & 0777));
	return strtoll(buf, NULL, 10);
}

int ag_mode_from_digits(long long mode)
{
	char buf[24], *end;
	long v;

	if (mode < 0)
		return -1;
	snprintf(buf, sizeof buf, "%lld", mode);
	v = strtol(buf, &end, 8);
	if (*end || v > 07777)
		return -1;
	return (int)v;
}

json_t *ag_fileinfo(const char *path, const struct stat *st)
{
	json_t *o = json_object();

	json_object_set_new(o, "path", ag_json_text(path));
	json_object_set_new(o, "type", json_string(type_name(st->st_mode)));
	json_object_set_new(o, "size", json_integer((json_int_t)st->st_size));
	json_object_set_new(o, "modified_at", rfc3339(st->st_mtime));
	/* Linux keeps no creation time in struct stat; the official execd
	 * reports the change time too. */
	json_object_set_new(o, "created_at", rfc3339(st->st_ctime));
	json_object_set_new(o, "owner", user_name(st->st_uid));
	json_object_set_new(o, "group", group_name(st->st_gid));
	json_object_set_new(o, "mode", json_integer(mode_digits(st->st_mode)));
	return o;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* The names in DIR, sorted. The directory is closed before recursing, so a
 * deep tree does not hold a descriptor per level. */
static int read_names(const char *dir, char ***out, size_t *count)
{
	DIR *d = opendir(dir);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (n == cap) {
			char **grown = realloc(names, (cap = cap ? cap * 2 : 32) * sizeof *grown);

			if (!grown)
				goto nomem;
			names = grown;
		}
		names[n] = strdup(e->d_name);
		if (!names[n])
			goto nomem;
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, by_name);
	*out = names;
	*count = n;
	return 0;
nomem:
	closedir(d);
	free_names(names, n);
	errno = ENOMEM;
	return -1;
}

static int walk(const char *dir, int depth, int max_depth, ag_walk_fn fn, void *cls, char **where)
{
	char **names;
	size_t n, i;
	int rc = 0;

	if (read_names(dir, &names, &n) < 0) {
		if (errno == ENOENT)
			return 0;
		if (where)
			*where = strdup(dir);
		return -1;
	}
	for (i = 0; i < n && rc == 0; i++) {
		char *path = ax_path_join(dir, names[i]);
		struct stat st;

		if (!path) {
			errno = ENOMEM;
			rc = -1;
			break;
		}
		if (lstat(path, &st) < 0) {
			if (errno != ENOENT) {
				if (where)
					*where = strdup(path);
				rc = -1;
			}
		} else if (fn(cls, path, &st, depth) < 0) {
			rc = -1;
		} else if (S_ISDIR(st.st_mode) && depth < max_depth) {
			rc = walk(path, depth + 1, max_depth, fn, cls, where);
		}
		free(path);
	}
	free_names(names, n);
	return rc;
}

int ag_walk(const char *root, int max_depth, ag_walk_fn fn, void *cls, char **where)
{
	if (where)
		*where = NULL;
	if (max_depth <= 0)
		return 0;
	return walk(root, 1, max_depth, fn, cls, where);
}
