/*
 * libFuzzer target for lexical path normalisation and containment (the
 * checks that keep remote listings from escaping a download): make fuzz.
 * The input is "ROOT\0PATH" (or just PATH under "/home/gem").
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/path.h"

static bool has_bad_component(const char *p, bool absolute)
{
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 0)
			return true;        /* an empty component: "//" or a trailing slash */
		if (n == 1 && p[0] == '.')
			return true;
		if (absolute && n == 2 && p[0] == '.' && p[1] == '.')
			return true;
		p += n;
		if (*p == '/')
			p++;
		if (!*p && p[-1] == '/')
			return true;
	}
	return false;
}

static void check_norm(const char *in, const char *n)
{
	char *again;

	if (!n[0])
		abort();
	if (strcmp(n, "/") != 0 && strcmp(n, ".") != 0 &&
	    has_bad_component(n[0] == '/' ? n + 1 : n, n[0] == '/'))
		abort();
	if ((in[0] == '/') != (n[0] == '/'))
		abort();
	again = ax_path_norm(n);
	if (!again || strcmp(again, n) != 0)
		abort();
	free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *root_in, *path_in, *root, *path;
	const char *nul;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	nul = memchr(buf, '\0', size);
	root_in = nul ? buf : (char *)"/home/gem";
	path_in = nul ? (char *)nul + 1 : buf;
	root = ax_path_norm(root_in);
	path = ax_path_norm(path_in);
	if (!root || !path)
		abort();
	check_norm(root_in, root);
	check_norm(path_in, path);
	if (ax_path_inside(root, path)) {
		size_t rl = strlen(root);

		/* Strictly inside: longer, and below ROOT at a component boundary. */
		if (strcmp(root, path) == 0)
			abort();
		if (strcmp(root, "/") == 0 ? path[0] != '/' :
		    strcmp(root, ".") == 0 ? (path[0] == '/' || strcmp(path, "..") == 0 || strncmp(path, "../", 3) == 0) :
		    (strncmp(path, root, rl) != 0 || path[rl] != '/'))
			abort();
	}
	free(root);
	free(path);
	free(buf);
	return 0;
}
