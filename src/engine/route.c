/* Matching a request against a route table. */
#include "engine/route.h"

#include <string.h>

/* The length of PATH's next segment (up to '/' or the end). */
static size_t segment(const char *path)
{
	return strcspn(path, "/");
}

bool ax_route_match(const char *pattern, const char *path, ax_route_args *args)
{
	args->n = 0;
	while (*pattern && *path) {
		if (pattern[0] == '{') {
			const char *close = strchr(pattern, '}');
			size_t n = segment(path);

			if (!close || n == 0 || n >= AX_ROUTE_ARG_MAX || args->n == AX_ROUTE_MAX_ARGS)
				return false;
			memcpy(args->v[args->n], path, n);
			args->v[args->n++][n] = '\0';
			pattern = close + 1;
			path += n;
		} else if (*pattern == *path) {
			pattern++;
			path++;
		} else {
			return false;
		}
	}
	return !*pattern && (!*path || strcmp(path, "/") == 0);
}

const ax_route *ax_route_find(const ax_route *table, const char *method, const char *path, ax_route_args *args,
			      int *status)
{
	ax_route_args scratch;
	const ax_route *r;

	*status = 404;
	for (r = table; r->method; r++) {
		if (!ax_route_match(r->pattern, path, &scratch))
			continue;
		if (strcmp(r->method, method) == 0) {
			*args = scratch;
			return r;
		}
		*status = 405;
	}
	return NULL;
}
