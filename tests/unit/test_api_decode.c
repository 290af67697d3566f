/* The API clients' decoders apart from HTTP (fuzzed in tests/fuzz): what a
 * broken or hostile server answers becomes one clean line or a well-formed
 * object. Bodies are handed over exactly as long as sent (no NUL after
 * them), as the fuzz targets do, so the sanitizer build catches over-reads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "api/aio_call.h"
#include "api/execd_files.h"
#include "api/lifecycle_decode.h"
#include "api/mcp_client.h"
#include "api/mcp_http.h"

/* TEXT without its NUL, in a block of its exact length. */
static char *exact(const char *text, size_t *len)
{
	char *b;

	*len = strlen(text);
	b = malloc(*len ? *len : 1);
	assert_non_null(b);
	memcpy(b, text, *len);
	return b;
}

static void assert_one_clean_line(const ax_error *e)
{
	assert_true(e->message[0] != '\0');
	for (const char *p = e->message; *p; p++)
		assert_false((unsigned char)*p < 0x20 || *p == 0x7f);
}

static void test_lifecycle_error_is_one_line(void **state)
{
	size_t len;
	char *body = exact("{\"code\":\"X\",\"message\":\"bad\\n\\u001b[2Jthing\"}", &len);
	json_t *doc = (json_t *)1;
	ax_error err;

	(void)state;
	assert_int_equal(ax_lc_decode_answer("GET", "/sandboxes", 200, 404, body, len, &doc, &err), -1);
	assert_null(doc);
	assert_one_clean_line(&err);
	assert_string_equal(err.message, "Sandbox error [X]: bad??[2Jthing");
	free(body);
	body = exact("<html>\r\nbad gateway", &len);
	assert_int_equal(ax_lc_decode_answer("GET", "/sandboxes", 200, 502, body, len, &doc, &err), -1);
	assert_string_equal(err.message, "Sandbox error [HTTP 502]: <html>??bad gateway");
	free(body);
}

/* A sandbox without an id (or with odd types) made `sandbox list` rows NULL. */
static void test_sandbox_object_always_whole(void **state)
{
	json_t *in = json_pack("{s:i, s:{s:i}, s:s}", "id", 7, "status", "state", 3, "snapshotId", "snap-1");
	json_t *o = ax_lc_sandbox_object(in);

	(void)state;
	assert_int_equal(json_object_size(o), 5);
	assert_true(json_is_null(json_object_get(o, "id")));
	assert_string_equal(json_string_value(json_object_get(o, "state")), "Unknown");
	assert_string_equal(json_string_value(json_object_get(o, "image")), "checkpoint:snap-1");
	assert_true(json_is_null(json_object_get(o, "expires_at")));
	assert_string_equal(json_string_value(json_object_get(o, "created_at")), "");
	json_decref(o);
	o = ax_lc_sandbox_object(json_array_get(in, 0));
	assert_int_equal(json_object_size(o), 5);
	json_decref(o);
	json_decref(in);
	o = ax_lc_snapshot_object(NULL);
	assert_int_equal(json_object_size(o), 7);
	json_decref(o);
}

/* A server that always says "more" is asked no further than totalPages,
 * and never after an empty page. */
static void test_pages_are_bounded(void **state)
{
	json_t *all = json_array();
	json_t *doc = json_pack("{s:[i], s:{s:b, s:i}}", "items", 1, "pagination", "hasNextPage", 1, "totalPages", 2);
	json_t *empty = json_pack("{s:[], s:{s:b}}", "items", "pagination", "hasNextPage", 1);
	json_t *none = json_pack("{s:i}", "items", 3);
	json_t *mock = json_pack("{s:[i], s:{s:b, s:i}}", "items", 1, "pagination", "hasNextPage", 1, "totalPages", 0);
	json_t *untold = json_pack("{s:[i], s:{s:b}}", "items", 1, "pagination", "hasNextPage", 1);
	bool more;
	ax_error err;

	(void)state;
	assert_int_equal(ax_lc_decode_page(doc, "/sandboxes", 1, all, &more, &err), 0);
	assert_true(more);
	assert_int_equal(ax_lc_decode_page(doc, "/sandboxes", 2, all, &more, &err), 0);
	assert_false(more);
	assert_int_equal(json_array_size(all), 2);
	assert_int_equal(ax_lc_decode_page(empty, "/sandboxes", 1, all, &more, &err), 0);
	assert_false(more);
	/* prism's mock: totalPages 0 and hasNextPage true on every page (it made
	 * `sandbox list` ask 100,000 pages). */
	assert_int_equal(ax_lc_decode_page(mock, "/sandboxes", 1, all, &more, &err), 0);
	assert_false(more);
	assert_int_equal(ax_lc_decode_page(untold, "/sandboxes", 7, all, &more, &err), 0);
	assert_true(more);
	assert_int_equal(ax_lc_decode_page(none, "/sandboxes", 1, all, &more, &err), -1);
	assert_false(more);
	assert_one_clean_line(&err);
	json_decref(doc);
	json_decref(empty);
	json_decref(none);
	json_decref(mock);
	json_decref(untold);
	json_decref(all);
}

static void test_endpoint(void **state)
{
	json_t *doc = json_pack("{s:s, s:i}", "endpoint", "127.0.0.1:9/x", "headers", 5), *h = NULL;
	json_t *bad = json_pack("{s:s}", "endpoint", "");
	char *url = NULL;
	ax_error err;

	(void)state;
	assert_int_equal(ax_lc_decode_endpoint(doc, 44772, &url, &h, &err), 0);
	assert_string_equal(url, "http://127.0.0.1:9/x");
	assert_true(json_is_object(h));
	free(url);
	json_decref(h);
	assert_int_equal(ax_lc_decode_endpoint(bad, 44772, &url, &h, &err), -1);
	assert_null(url);
	assert_null(h);
	json_decref(doc);
	json_decref(bad);
}

/* execd's error body need not end in NUL: the first line is quoted, no more. */
static void test_execd_error_reads_no_further(void **state)
{
	size_t len;
	char *body = exact("not json, and no NUL after it", &len);
	ax_error err;

	(void)state;
	assert_int_equal(ax_execd_decode_error(500, body, len, &err), -1);
	assert_string_equal(err.message, "Sandbox error [HTTP 500]: not json, and no NUL after it");
	free(body);
	body = exact("{\"error\":\"unauthorized\"}", &len);
	assert_int_equal(ax_execd_decode_error(401, body, len, &err), -1);
	assert_string_equal(err.message, "Sandbox error [HTTP 401]: unauthorized");
	free(body);
}

static void test_execd_info_and_list(void **state)
{
	size_t len;
	char *body = exact("{\"/other\":{\"size\":1,\"path\":5}}", &len);
	json_t *v = NULL;
	ax_error err;

	(void)state;
	assert_int_equal(ax_execd_decode_info(body, len, "/asked", &v, &err), 0);
	assert_string_equal(json_string_value(json_object_get(v, "path")), "/asked");
	json_decref(v);
	free(body);
	body = exact("{\"a\":1,\"b\":2}", &len);
	assert_int_equal(ax_execd_decode_info(body, len, "/asked", &v, &err), -1);
	assert_null(v);
	assert_int_equal(ax_execd_decode_list(body, len, "/asked", &v, &err), -1);
	assert_one_clean_line(&err);
	free(body);
}

static void test_aio_envelope(void **state)
{
	size_t len;
	char *body = exact("{\"success\":false,\"message\":\"kernel\\ndied\",\"data\":{}}", &len);
	json_t *d = NULL;
	ax_error err;

	(void)state;
	assert_int_equal(ax_aio_decode(200, body, len, "no data", &d, &err), -1);
	assert_null(d);
	assert_string_equal(err.message, "kernel?died");
	free(body);
	body = exact("{\"success\":true,\"data\":[1]}", &len);
	assert_int_equal(ax_aio_decode(200, body, len, "no data", &d, &err), 0);
	assert_true(json_is_array(d));
	json_decref(d);
	free(body);
}

static void test_mcp_decoders(void **state)
{
	size_t len;
	char *body = exact("data: {\"jsonrpc\":\"2.0\",\"method\":\"x\",\"id\":1}\n\n"
			   "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-1,\"message\":\"no\\u001bpe\"}}\n\n",
			   &len);
	json_t *reply = NULL, *result = NULL, *data = NULL;
	ax_error err;

	(void)state;
	assert_int_equal(ax_mcp_decode_reply("/mcp", 200, "text/event-stream", body, len, 1, &reply, &err), 0);
	assert_non_null(reply);
	assert_null(json_object_get(reply, "method"));
	assert_int_equal(ax_mcp_decode_result("/mcp", "tools/call", 200, reply, &result, &err), -1);
	assert_null(result);
	assert_string_equal(err.message, "MCP error -1: no?pe");
	json_decref(reply);
	free(body);
	body = exact("{\"detail\":\"Not Found\"}", &len);
	assert_int_equal(ax_mcp_decode_bridge(404, body, len, &data, NULL, &err), 1);
	assert_int_equal(ax_mcp_decode_bridge(500, body, len, &data, NULL, &err), -1);
	assert_string_equal(err.message, "AIO API error (500): Not Found");
	free(body);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lifecycle_error_is_one_line),
		cmocka_unit_test(test_sandbox_object_always_whole),
		cmocka_unit_test(test_pages_are_bounded),
		cmocka_unit_test(test_endpoint),
		cmocka_unit_test(test_execd_error_reads_no_further),
		cmocka_unit_test(test_execd_info_and_list),
		cmocka_unit_test(test_aio_envelope),
		cmocka_unit_test(test_mcp_decoders),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
