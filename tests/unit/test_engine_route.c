/* route.c: the engine's route table matcher and the wire codes' statuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "engine/route.h"
#include "engine/wire_error.h"

static void fn_a(ax_engine *e, const ax_req *r, const ax_route_args *a, ax_resp *p) { (void)e; (void)r; (void)a; (void)p; }
static void fn_b(ax_engine *e, const ax_req *r, const ax_route_args *a, ax_resp *p) { (void)e; (void)r; (void)a; (void)p; }

static const ax_route table[] = {
	{ "GET", "/sandboxes", fn_a },
	{ "POST", "/sandboxes", fn_b },
	{ "GET", "/sandboxes/{id}", fn_a },
	{ "GET", "/sandboxes/{id}/endpoints/{port}", fn_b },
	{ NULL, NULL, NULL },
};

static void exact_paths(void **state)
{
	ax_route_args a;

	(void)state;
	assert_true(ax_route_match("/health", "/health", &a));
	assert_int_equal(a.n, 0);
	assert_true(ax_route_match("/health", "/health/", &a));
	assert_false(ax_route_match("/health", "/healthz", &a));
	assert_false(ax_route_match("/health", "/heal", &a));
	assert_false(ax_route_match("/health", "/health//", &a));
}

static void segments_captured(void **state)
{
	ax_route_args a;

	(void)state;
	assert_true(ax_route_match("/sandboxes/{id}/endpoints/{port}", "/sandboxes/abc/endpoints/8080", &a));
	assert_int_equal(a.n, 2);
	assert_string_equal(a.v[0], "abc");
	assert_string_equal(a.v[1], "8080");
	/* A segment is never empty and never spans a '/'. */
	assert_false(ax_route_match("/sandboxes/{id}", "/sandboxes/", &a));
	assert_false(ax_route_match("/sandboxes/{id}", "/sandboxes//x", &a));
	assert_false(ax_route_match("/sandboxes/{id}", "/sandboxes/a/b", &a));
	assert_false(ax_route_match("/sandboxes/{id}/pause", "/sandboxes/a", &a));
}

static void long_segment_refused(void **state)
{
	char path[400] = "/sandboxes/";
	ax_route_args a;

	(void)state;
	memset(path + strlen(path), 'x', AX_ROUTE_ARG_MAX);
	assert_false(ax_route_match("/sandboxes/{id}", path, &a));
	path[11 + AX_ROUTE_ARG_MAX - 1] = '\0';
	assert_true(ax_route_match("/sandboxes/{id}", path, &a));
	assert_int_equal(strlen(a.v[0]), AX_ROUTE_ARG_MAX - 1);
}

static void find_by_method(void **state)
{
	ax_route_args a;
	int status = 0;

	(void)state;
	assert_ptr_equal(ax_route_find(table, "POST", "/sandboxes", &a, &status)->fn, fn_b);
	assert_ptr_equal(ax_route_find(table, "GET", "/sandboxes/x/endpoints/1", &a, &status)->fn, fn_b);
	assert_string_equal(a.v[0], "x");
	assert_null(ax_route_find(table, "DELETE", "/sandboxes", &a, &status));
	assert_int_equal(status, 405);
	assert_null(ax_route_find(table, "GET", "/nothing", &a, &status));
	assert_int_equal(status, 404);
	assert_null(ax_route_find(table, "GET", "/sandboxes/x/pause", &a, &status));
	assert_int_equal(status, 404);
}

static void wire_statuses(void **state)
{
	(void)state;
	assert_int_equal(ax_wire_status("SANDBOX::NOT_FOUND"), 404);
	assert_int_equal(ax_wire_status("SNAPSHOT::NOT_FOUND"), 404);
	assert_int_equal(ax_wire_status("SANDBOX::INVALID_PARAMETER"), 400);
	assert_int_equal(ax_wire_status("SANDBOX::NOT_RUNNING"), 409);
	assert_int_equal(ax_wire_status("SANDBOX::PROVISIONING_ERROR"), 500);
	assert_int_equal(ax_wire_status("NOMEM"), 500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exact_paths),
		cmocka_unit_test(segments_captured),
		cmocka_unit_test(long_segment_refused),
		cmocka_unit_test(find_by_method),
		cmocka_unit_test(wire_statuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
