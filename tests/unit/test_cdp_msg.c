/* CDP messages: responses versus events, commands, error texts, base64. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/base64.h"
#include "agent/ext/browser/cdp_msg.h"

static int parse(const char *text, json_t **doc, struct cdp_msg *m)
{
	return cdp_msg_parse(text, strlen(text), doc, m);
}

static void test_response(void **state)
{
	struct cdp_msg m;
	json_t *doc;

	(void)state;
	assert_int_equal(parse("{\"id\": 7, \"result\": {\"data\": \"x\"}, \"sessionId\": \"S1\"}", &doc, &m), 0);
	assert_int_equal(m.kind, CDP_MSG_RESPONSE);
	assert_int_equal(m.id, 7);
	assert_string_equal(m.session, "S1");
	assert_string_equal(json_string_value(json_object_get(m.result, "data")), "x");
	assert_null(m.error);
	json_decref(doc);
	/* An empty result is still a result. */
	assert_int_equal(parse("{\"id\":1,\"result\":{}}", &doc, &m), 0);
	assert_non_null(m.result);
	assert_null(m.session);
	json_decref(doc);
}

static void test_error_response(void **state)
{
	struct cdp_msg m;
	json_t *doc;
	char text[200];

	(void)state;
	assert_int_equal(parse("{\"id\":2,\"error\":{\"code\":-32602,\"message\":\"Invalid parameters\","
			       "\"data\":\"Failed to deserialize params.url\"}}",
			       &doc, &m),
			 0);
	assert_int_equal(m.kind, CDP_MSG_RESPONSE);
	assert_null(m.result);
	cdp_msg_error_text(m.error, text, sizeof text);
	assert_string_equal(text, "Invalid parameters (code -32602): Failed to deserialize params.url");
	json_decref(doc);
	assert_int_equal(parse("{\"id\":3,\"error\":{\"code\":-32601,\"message\":\"'Foo.bar' wasn't found\"}}", &doc, &m),
			 0);
	cdp_msg_error_text(m.error, text, sizeof text);
	assert_string_equal(text, "'Foo.bar' wasn't found (code -32601)");
	json_decref(doc);
}

static void test_event(void **state)
{
	struct cdp_msg m;
	json_t *doc;

	(void)state;
	assert_int_equal(parse("{\"method\":\"Page.lifecycleEvent\",\"params\":{\"name\":\"load\",\"loaderId\":\"L\"},"
			       "\"sessionId\":\"S\"}",
			       &doc, &m),
			 0);
	assert_int_equal(m.kind, CDP_MSG_EVENT);
	assert_string_equal(m.method, "Page.lifecycleEvent");
	assert_string_equal(m.session, "S");
	assert_string_equal(json_string_value(json_object_get(m.params, "name")), "load");
	json_decref(doc);
	/* An event without params. */
	assert_int_equal(parse("{\"method\":\"Inspector.detached\"}", &doc, &m), 0);
	assert_null(m.params);
	json_decref(doc);
}

static void test_invalid(void **state)
{
	static const char *const bad[] = {
		"", "not json", "[1,2]", "{}", "{\"id\":\"7\",\"result\":{}}", "{\"id\":7}", "{\"id\":7,\"result\":[]}",
		"{\"id\":7,\"error\":\"x\"}", "{\"method\":5}", "{\"id\":7,\"method\":\"A.b\",\"result\":5}",
	};
	struct cdp_msg m;
	json_t *doc;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(parse(bad[i], &doc, &m), -1);
		assert_null(doc);
	}
}

static void test_command(void **state)
{
	json_t *params = json_pack("{s:s}", "url", "about:blank");
	size_t len = 0;
	char *text;

	(void)state;
	text = cdp_msg_command(5, "Page.navigate", params, "SESS", &len);
	assert_string_equal(text, "{\"id\":5,\"method\":\"Page.navigate\",\"params\":{\"url\":\"about:blank\"},"
				  "\"sessionId\":\"SESS\"}");
	assert_int_equal(len, strlen(text));
	free(text);
	/* The caller's params are untouched; no params and no session. */
	assert_int_equal(json_object_size(params), 1);
	text = cdp_msg_command(6, "Browser.getVersion", NULL, NULL, NULL);
	assert_string_equal(text, "{\"id\":6,\"method\":\"Browser.getVersion\",\"params\":{}}");
	free(text);
	assert_null(cdp_msg_command(7, NULL, NULL, NULL, NULL));
	json_decref(params);
}

static void test_base64(void **state)
{
	unsigned char *out;
	size_t len;

	(void)state;
	assert_int_equal(ax_base64_decode("aGVsbG8=", 8, &out, &len), 0);
	assert_int_equal(len, 5);
	assert_memory_equal(out, "hello", 5);
	free(out);
	assert_int_equal(ax_base64_decode("AAEC/w==", 8, &out, &len), 0);
	assert_int_equal(len, 4);
	assert_memory_equal(out, "\x00\x01\x02\xff", 4);
	free(out);
	assert_int_equal(ax_base64_decode("", 0, &out, &len), 0);
	assert_int_equal(len, 0);
	free(out);
	assert_int_equal(ax_base64_decode("a*b$", 4, &out, &len), -1);
	assert_null(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_response),
		cmocka_unit_test(test_error_response),
		cmocka_unit_test(test_event),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_command),
		cmocka_unit_test(test_base64),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
