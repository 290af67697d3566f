/* The engine's routing: a table of (method, path pattern, handler) rows.
 * A pattern's "{name}" segments match one non-empty path segment each, which
 * the handler finds in ax_route_args in order. Adding a route = one row and
 * one thin handler that turns the request into a domain call and its result
 * (or ax_error, wire_error.h) into the answer. */
#ifndef ALLOX_ENGINE_ROUTE_H
#define ALLOX_ENGINE_ROUTE_H

#include <stdbool.h>

#include "engine/engine.h"

#define AX_ROUTE_MAX_ARGS 4
#define AX_ROUTE_ARG_MAX 128

typedef struct ax_route_args {
	int n;
	char v[AX_ROUTE_MAX_ARGS][AX_ROUTE_ARG_MAX];
} ax_route_args;

typedef void (*ax_route_fn)(ax_engine *e, const ax_req *req, const ax_route_args *args, ax_resp *resp);

typedef struct ax_route {
	const char *method;
	const char *pattern;
	ax_route_fn fn;
} ax_route;

/* Whether PATH matches PATTERN (one trailing '/' of PATH is ignored); the
 * "{...}" segments' values in ARGS. A segment of AX_ROUTE_ARG_MAX bytes or
 * more matches nothing. */
bool ax_route_match(const char *pattern, const char *path, ax_route_args *args);

/* The row of TABLE (ended by a row with a NULL method) for METHOD PATH, or
 * NULL with *STATUS 404 (no pattern matches PATH) or 405 (one does, for
 * other methods). */
const ax_route *ax_route_find(const ax_route *table, const char *method, const char *path, ax_route_args *args,
			      int *status);

#endif
