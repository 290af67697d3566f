/* MCP's JSON-RPC layer without a server: message classes, id matching,
 * one-message-per-line framing, version negotiation (the agent's
 * mcp_jsonrpc.c), and the client's SSE reply parsing (src/api/mcp_http.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "api/mcp_client.h"
#include "api/mcp_http.h"
#include "agent/ext/mcp/mcp_jsonrpc.h"
#include "agent/ext/mcp/mcp_session.h"

static enum mcp_kind kind_of(const char *text)
{
	json_t *m = json_loads(text, JSON_DECODE_ANY, NULL);
	enum mcp_kind k = mcp_classify(m);

	json_decref(m);
	return k;
}

static void test_classify(void **state)
{
	(void)state;
	assert_int_equal(kind_of("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"), MCP_REQUEST);
	assert_int_equal(kind_of("{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"sampling/createMessage\"}"), MCP_REQUEST);
	assert_int_equal(kind_of("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}"), MCP_NOTIFICATION);
	/* An id of null is no id: a notification, never answered. */
	assert_int_equal(kind_of("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"x\"}"), MCP_NOTIFICATION);
	assert_int_equal(kind_of("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"), MCP_RESPONSE);
	assert_int_equal(kind_of("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"x\"}}"),
			 MCP_RESPONSE);
	/* What a server silently drops. */
	assert_int_equal(kind_of("{\"jsonrpc\":\"2.0\",\"id\":6}"), MCP_INVALID);
	assert_int_equal(kind_of("{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}"), MCP_INVALID);
	assert_int_equal(kind_of("{\"id\":1,\"method\":\"ping\"}"), MCP_INVALID);
	assert_int_equal(kind_of("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]"), MCP_INVALID);
	assert_int_equal(kind_of("{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}"), MCP_INVALID);
	assert_int_equal(kind_of("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}"), MCP_INVALID);
	assert_int_equal(kind_of("\"text\""), MCP_INVALID);
}

static void test_ids_keep_their_type(void **state)
{
	json_t *ours = json_loads("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", 0, NULL);
	json_t *str = json_loads("{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{}}", 0, NULL);
	/* Their request with our number is not our reply. */
	json_t *theirs = json_loads("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"roots/list\"}", 0, NULL);

	(void)state;
	assert_true(mcp_is_response_to(ours, 1));
	assert_false(mcp_is_response_to(ours, 2));
	assert_false(mcp_is_response_to(str, 1));
	assert_false(mcp_is_response_to(theirs, 1));
	json_decref(ours);
	json_decref(str);
	json_decref(theirs);
}

static void test_build_messages(void **state)
{
	json_t *req = mcp_request(7, "tools/list", json_pack("{s:s}", "cursor", "c1"));
	json_t *note = mcp_notification("notifications/initialized", NULL);
	json_t *id = json_string("q");
	json_t *res = mcp_result(id, NULL), *err = mcp_error(NULL, MCP_METHOD_NOT_FOUND, "Method not found");
	json_t *expect;

	(void)state;
	expect = json_loads("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\",\"params\":{\"cursor\":\"c1\"}}", 0, NULL);
	assert_true(json_equal(req, expect));
	json_decref(expect);
	assert_null(json_object_get(note, "id"));
	assert_null(json_object_get(note, "params"));
	assert_int_equal(mcp_classify(note), MCP_NOTIFICATION);
	expect = json_loads("{\"jsonrpc\":\"2.0\",\"id\":\"q\",\"result\":{}}", 0, NULL);
	assert_true(json_equal(res, expect));
	json_decref(expect);
	expect = json_loads("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}", 0,
			    NULL);
	assert_true(json_equal(err, expect));
	json_decref(expect);
	json_decref(req);
	json_decref(note);
	json_decref(id);
	json_decref(res);
	json_decref(err);
}

static void test_encode_line_has_no_raw_newline(void **state)
{
	json_t *m = mcp_request(1, "tools/call", json_pack("{s:s}", "message", "hi\nthere"));
	size_t len = 0;
	char *line = mcp_encode_line(m, &len);

	(void)state;
	assert_non_null(line);
	assert_int_equal(len, strlen(line));
	assert_int_equal(line[len - 1], '\n');
	assert_null(memchr(line, '\n', len - 1));
	assert_non_null(strstr(line, "hi\\nthere"));
	free(line);
	json_decref(m);
}

static void test_lines_split_across_reads(void **state)
{
	struct mcp_lines l = { 0 };
	char *line;

	(void)state;
	assert_int_equal(mcp_lines_feed(&l, "{\"a\":", 5), 0);
	assert_null(mcp_lines_next(&l));
	assert_int_equal(mcp_lines_feed(&l, "1}\r\n{\"b\":2}\n{\"c\"", 16), 0);
	line = mcp_lines_next(&l);
	assert_string_equal(line, "{\"a\":1}");     /* the \r goes too */
	free(line);
	line = mcp_lines_next(&l);
	assert_string_equal(line, "{\"b\":2}");
	free(line);
	assert_null(mcp_lines_next(&l));
	assert_int_equal(mcp_lines_feed(&l, ":3}\n\n", 5), 0);
	line = mcp_lines_next(&l);
	assert_string_equal(line, "{\"c\":3}");
	free(line);
	line = mcp_lines_next(&l);
	assert_string_equal(line, "");
	free(line);
	assert_null(mcp_lines_next(&l));
	mcp_lines_free(&l);
}

static void test_lines_drop_an_overlong_line(void **state)
{
	struct mcp_lines l = { .max = 16 };
	char *line;

	(void)state;
	assert_int_equal(mcp_lines_feed(&l, "0123456789abcdef0123", 20), 0);
	assert_int_equal(mcp_lines_feed(&l, "more of it\nok\n", 14), 0);
	line = mcp_lines_next(&l);
	assert_string_equal(line, "ok");
	free(line);
	assert_null(mcp_lines_next(&l));
	mcp_lines_free(&l);
}

static void test_version_negotiation(void **state)
{
	(void)state;
	assert_string_equal(mcp_pick_version("2025-06-18"), "2025-06-18");
	assert_string_equal(mcp_pick_version("2024-11-05"), "2024-11-05");
	assert_string_equal(mcp_pick_version("2026-07-28"), MCP_LATEST_VERSION);
	assert_string_equal(mcp_pick_version("1999-01-01"), MCP_LATEST_VERSION);
	assert_string_equal(mcp_pick_version(NULL), MCP_LATEST_VERSION);
	assert_true(mcp_version_known("2025-03-26"));
	assert_false(mcp_version_known("2025-03-27"));
	assert_false(mcp_version_known(NULL));
}

static void test_sse_reply(void **state)
{
	/* A priming event without data, a notification, a request of the
	 * server's with our id number, then our reply split over two data lines. */
	static const char body[] = "id: 0\ndata:\n\n"
				   "event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\r\n\r\n"
				   ": keep-alive\n"
				   "data: {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n\n"
				   "event: message\nid: abc\ndata: {\"jsonrpc\":\"2.0\",\n"
				   "data: \"id\":3,\"result\":{\"ok\":true}}\n\n";
	json_t *m = ax_mcp_sse_find(body, sizeof body - 1, 3);

	(void)state;
	assert_non_null(m);
	assert_true(json_is_true(json_object_get(json_object_get(m, "result"), "ok")));
	json_decref(m);
	assert_null(ax_mcp_sse_find(body, sizeof body - 1, 4));
}

static void test_sse_reply_without_final_blank_line(void **state)
{
	static const char body[] = "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}";
	json_t *m = ax_mcp_sse_find(body, sizeof body - 1, 1);

	(void)state;
	assert_non_null(m);
	json_decref(m);
}

static void test_tool_server_and_name(void **state)
{
	json_t *ours = json_loads("{\"name\":\"everything_get-sum\",\"_meta\":{\"allox/server\":\"everything\","
				  "\"allox/tool\":\"get-sum\"}}", 0, NULL);
	json_t *aio = json_loads("{\"name\":\"markitdown_convert_to_markdown\"}", 0, NULL);
	json_t *browser = json_loads("{\"name\":\"browser_navigate\"}", 0, NULL);
	json_t *bare = json_loads("{\"name\":\"plain\"}", 0, NULL);
	char *s;

	(void)state;
	s = ax_mcp_tool_server(ours);
	assert_string_equal(s, "everything");
	free(s);
	s = ax_mcp_tool_name(ours, "everything");
	assert_string_equal(s, "get-sum");
	free(s);
	/* AIO's hub gives no _meta: split at the first '_' for the server ... */
	s = ax_mcp_tool_server(aio);
	assert_string_equal(s, "markitdown");
	free(s);
	s = ax_mcp_tool_name(aio, "markitdown");
	assert_string_equal(s, "convert_to_markdown");
	free(s);
	/* ... but browser tools keep their own browser_ prefix. */
	s = ax_mcp_tool_name(browser, "browser");
	assert_string_equal(s, "browser_navigate");
	free(s);
	s = ax_mcp_tool_server(bare);
	assert_string_equal(s, "");
	free(s);
	json_decref(ours);
	json_decref(aio);
	json_decref(browser);
	json_decref(bare);
}

static void test_sessions(void **state)
{
	struct mcp_sessions *s = mcp_sessions_new();
	char a[MCP_SESSION_ID_LEN + 1], b[MCP_SESSION_ID_LEN + 1], version[MCP_VERSION_LEN];
	size_t i;

	(void)state;
	assert_non_null(s);
	assert_int_equal(mcp_session_create(s, "2025-06-18", a), 0);
	assert_int_equal(mcp_session_create(s, "2025-11-25", b), 0);
	assert_int_equal(strlen(a), MCP_SESSION_ID_LEN);
	for (i = 0; i < MCP_SESSION_ID_LEN; i++)
		assert_non_null(strchr("0123456789abcdef", a[i]));
	assert_string_not_equal(a, b);
	assert_int_equal(mcp_session_touch(s, a, version), 0);
	assert_string_equal(version, "2025-06-18");
	assert_int_equal(mcp_session_touch(s, b, version), 0);
	assert_string_equal(version, "2025-11-25");
	assert_int_equal(mcp_session_touch(s, "nope", version), -1);
	assert_int_equal(mcp_session_touch(s, NULL, version), -1);
	assert_int_equal(mcp_session_delete(s, a), 0);
	assert_int_equal(mcp_session_touch(s, a, version), -1);
	assert_int_equal(mcp_session_delete(s, a), -1);
	assert_int_equal(mcp_session_touch(s, b, version), 0);
	mcp_sessions_free(s);
}

static void test_sessions_full_table_drops_the_oldest(void **state)
{
	struct mcp_sessions *s = mcp_sessions_new();
	char first[MCP_SESSION_ID_LEN + 1], id[MCP_SESSION_ID_LEN + 1], version[MCP_VERSION_LEN];
	int i, live = 0;

	(void)state;
	assert_int_equal(mcp_session_create(s, "2025-06-18", first), 0);
	for (i = 0; i < 64; i++)
		assert_int_equal(mcp_session_create(s, "2025-06-18", id), 0);
	/* 65 sessions in a table of 64: one is gone, the newest is there. */
	assert_int_equal(mcp_session_touch(s, id, version), 0);
	live += mcp_session_touch(s, first, version) == 0;
	assert_int_equal(live, 0);
	mcp_sessions_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_ids_keep_their_type),
		cmocka_unit_test(test_build_messages),
		cmocka_unit_test(test_encode_line_has_no_raw_newline),
		cmocka_unit_test(test_lines_split_across_reads),
		cmocka_unit_test(test_lines_drop_an_overlong_line),
		cmocka_unit_test(test_version_negotiation),
		cmocka_unit_test(test_sse_reply),
		cmocka_unit_test(test_sse_reply_without_final_blank_line),
		cmocka_unit_test(test_tool_server_and_name),
		cmocka_unit_test(test_sessions),
		cmocka_unit_test(test_sessions_full_table_drops_the_oldest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
