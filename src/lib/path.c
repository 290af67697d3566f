#include "lib/path.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *ax_path_norm(const char *p)
{
	size_t n = strlen(p), len = 0, base;
	char *out = malloc(n + 2);
	const char *s = p;

	if (!out)
		return NULL;
	if (*p == '/')
		out[len++] = '/';
	base = len;
	while (*s) {
		const char *e;
		size_t cl;

		while (*s == '/')
			s++;
		for (e = s; *e && *e != '/'; e++)
			;
		cl = (size_t)(e - s);
		if (cl == 0)
			break;
		if (cl == 2 && s[0] == '.' && s[1] == '.') {
			size_t k = len;

			while (k > base && out[k - 1] != '/')
				k--;
			if (len > base && !(len - k == 2 && out[k] == '.' && out[k + 1] == '.')) {
				len = k > base ? k - 1 : base;
				s = e;
				continue;
			}
			/* Above the root of an absolute path there is only the root. */
			if (base) {
				s = e;
				continue;
			}
		} else if (cl == 1 && s[0] == '.') {
			s = e;
			continue;
		}
		if (len > base)
			out[len++] = '/';
		memcpy(out + len, s, cl);
		len += cl;
		s = e;
	}
	if (len == 0)
		out[len++] = '.';
	out[len] = '\0';
	return out;
}

char *ax_path_abs(const char *p)
{
	char cwd[PATH_MAX], *joined, *norm;

	if (*p == '/')
		return ax_path_norm(p);
	if (!getcwd(cwd, sizeof cwd) || asprintf(&joined, "%s/%s", cwd, p) < 0)
		return NULL;
	norm = ax_path_norm(joined);
	free(joined);
	return norm;
}

bool ax_path_inside(const char *root, const char *child)
{
	size_t rl = strlen(root);

	if (strcmp(root, "/") == 0)
		return child[0] == '/' && child[1] != '\0';
	if (strcmp(root, ".") == 0)
		return child[0] != '/' && strcmp(child, ".") != 0 && strcmp(child, "..") != 0 &&
		       strncmp(child, "../", 3) != 0;
	return strncmp(child, root, rl) == 0 && child[rl] == '/' && child[rl + 1] != '\0';
}

char *ax_path_join_rel(const char *root, const char *rel)
{
	char *out;
	size_t rl = strlen(root);

	if (asprintf(&out, "%s%s%s", root, rl && root[rl - 1] == '/' ? "" : "/", rel) < 0)
		return NULL;
	return out;
}
