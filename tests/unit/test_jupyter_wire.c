/* The Jupyter wire format (signing, framing, parsing) and the notebook-style
 * output list, without a kernel. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/ext/jupyter/jupyter_outputs.h"
#include "agent/ext/jupyter/jupyter_wire.h"

#define F(s) { (s), sizeof(s) - 1 }

static void test_sign_known_vector(void **state)
{
	/* hmac.new(b"secret", b'{"msg_id":"1"}' b'{}' b'{}' b'{"code":"x"}', hashlib.sha256) */
	const struct jw_frame json[4] = { F("{\"msg_id\":\"1\"}"), F("{}"), F("{}"), F("{\"code\":\"x\"}") };
	char sig[JW_SIG_LEN + 1];

	(void)state;
	assert_int_equal(jw_sign("secret", json, sig), 0);
	assert_string_equal(sig, "6d4e96e072a7d545daf167071b1f625b663fcd9227dc75b9859ef0fcf0aef780");
}

static void test_sign_empty_key(void **state)
{
	const struct jw_frame json[4] = { F("{}"), F("{}"), F("{}"), F("{}") };
	char sig[JW_SIG_LEN + 1] = "x";

	(void)state;
	assert_int_equal(jw_sign("", json, sig), 0);
	assert_string_equal(sig, "");
}

/* The frames of E as a socket would carry them, after NIDS routing ids. */
static size_t frames_of(const struct jw_encoded *e, size_t nids, struct jw_frame *out)
{
	size_t n = 0, i;

	for (i = 0; i < nids; i++)
		out[n++] = (struct jw_frame)F("routing-id");
	out[n++] = (struct jw_frame)F(JW_DELIM);
	out[n++] = (struct jw_frame){ e->sig, strlen(e->sig) };
	for (i = 0; i < 4; i++)
		out[n++] = (struct jw_frame){ e->json[i], e->len[i] };
	return n;
}

static json_t *sample_header(void)
{
	return jw_header("id-1", "session-1", "execute_reply", "2026-01-02T03:04:05.000006Z");
}

static void test_round_trip(void **state)
{
	json_t *h = sample_header(), *parent = json_pack("{s:s}", "msg_id", "request-7");
	json_t *content = json_pack("{s:s, s:i}", "status", "ok", "execution_count", 3);
	struct jw_frame frames[16];
	struct jw_encoded e;
	struct jw_msg m;
	const char *why = NULL;
	size_t ids, n;

	(void)state;
	assert_int_equal(jw_encode("k3y", h, parent, NULL, content, &e), 0);
	assert_int_equal(strlen(e.sig), JW_SIG_LEN);
	assert_string_equal(e.json[2], "{}");
	/* DEALER replies carry no routing id, ROUTER ones one or more: the
	 * delimiter is found wherever it is. */
	for (ids = 0; ids < 3; ids++) {
		n = frames_of(&e, ids, frames);
		assert_int_equal(jw_decode("k3y", frames, n, &m, &why), 0);
		assert_string_equal(m.msg_type, "execute_reply");
		assert_string_equal(m.parent_id, "request-7");
		assert_int_equal(json_integer_value(json_object_get(m.content, "execution_count")), 3);
		assert_string_equal(json_string_value(json_object_get(m.header, "version")), JW_PROTOCOL_VERSION);
		jw_msg_free(&m);
	}
	jw_encoded_free(&e);
	json_decref(h);
	json_decref(parent);
	json_decref(content);
}

static void expect_refused(const struct jw_frame *frames, size_t n, const char *key, const char *reason)
{
	struct jw_msg m;
	const char *why = NULL;

	assert_int_equal(jw_decode(key, frames, n, &m, &why), -1);
	assert_non_null(why);
	assert_non_null(strstr(why, reason));
	assert_null(m.header);
}

static void test_refused(void **state)
{
	json_t *h = sample_header();
	struct jw_frame frames[16];
	struct jw_encoded e;
	char tampered[] = "{\"status\":\"error\"}";
	size_t n;

	(void)state;
	assert_int_equal(jw_encode("k3y", h, NULL, NULL, NULL, &e), 0);
	n = frames_of(&e, 1, frames);
	expect_refused(frames, n, "another key", "invalid signature");
	expect_refused(frames + 2, n - 2, "k3y", "no <IDS|MSG> delimiter");
	expect_refused(frames, n - 1, "k3y", "fewer than six frames");
	/* Content changed after signing. */
	frames[n - 1] = (struct jw_frame){ tampered, strlen(tampered) };
	expect_refused(frames, n, "k3y", "invalid signature");
	/* Signed, but not JSON objects. */
	{
		struct jw_frame bad[6] = { F(JW_DELIM), F(""), F("[1]"), F("{}"), F("{}"), F("{}") };

		expect_refused(bad, 6, "", "not an object");
	}
	jw_encoded_free(&e);
	json_decref(h);
}

static void test_header_and_date(void **state)
{
	json_t *h;
	char date[32];

	(void)state;
	jw_date_now(date);
	/* YYYY-MM-DDTHH:MM:SS.ffffffZ */
	assert_int_equal(strlen(date), 27);
	assert_int_equal(date[10], 'T');
	assert_int_equal(date[19], '.');
	assert_int_equal(date[26], 'Z');
	h = jw_header("m", "s", "kernel_info_request", date);
	assert_string_equal(json_string_value(json_object_get(h, "msg_type")), "kernel_info_request");
	assert_string_equal(json_string_value(json_object_get(h, "date")), date);
	assert_non_null(json_object_get(h, "username"));
	json_decref(h);
}

/* Feed the iopub message TYPE with CONTENT (stolen) to O. */
static void feed(struct jo_outputs *o, const char *type, json_t *content)
{
	struct jw_msg m = { 0 };

	m.msg_type = type;
	m.content = content;
	jo_take(o, &m);
	json_decref(content);
}

static const char *field(json_t *list, size_t i, const char *key)
{
	return json_string_value(json_object_get(json_array_get(list, i), key));
}

static void test_outputs(void **state)
{
	struct jo_outputs o;
	json_t *list;

	(void)state;
	jo_init(&o);
	feed(&o, "status", json_pack("{s:s}", "execution_state", "busy"));
	feed(&o, "stream", json_pack("{s:s, s:s}", "name", "stdout", "text", "a"));
	feed(&o, "stream", json_pack("{s:s, s:s}", "name", "stdout", "text", "b\n"));
	feed(&o, "stream", json_pack("{s:s, s:s}", "name", "stderr", "text", "oops\n"));
	feed(&o, "display_data", json_pack("{s:{s:s}, s:{}, s:{s:s}}", "data", "text/plain", "v1", "metadata",
					   "transient", "display_id", "d1"));
	feed(&o, "update_display_data", json_pack("{s:{s:s}, s:{}, s:{s:s}}", "data", "text/plain", "v2", "metadata",
						  "transient", "display_id", "d1"));
	feed(&o, "execute_result", json_pack("{s:{s:s}, s:{}, s:i}", "data", "text/plain", "42", "metadata",
					     "execution_count", 5));
	list = jo_result(&o);
	/* Chunks of one stream merge; the display was updated in place. */
	assert_int_equal(json_array_size(list), 4);
	assert_string_equal(field(list, 0, "text"), "ab\n");
	assert_string_equal(field(list, 1, "name"), "stderr");
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_array_get(list, 2), "data"),
								"text/plain")),
			    "v2");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(list, 3), "execution_count")), 5);
	/* Every output has every key, unused ones null. */
	assert_true(json_is_null(json_object_get(json_array_get(list, 0), "data")));
	assert_true(json_is_null(json_object_get(json_array_get(list, 3), "traceback")));
	assert_int_equal(json_object_size(json_array_get(list, 0)), 9);
	json_decref(list);
	jo_free(&o);
}

static void test_clear_output(void **state)
{
	struct jo_outputs o;
	json_t *list;

	(void)state;
	jo_init(&o);
	feed(&o, "stream", json_pack("{s:s, s:s}", "name", "stdout", "text", "10%"));
	feed(&o, "clear_output", json_pack("{s:b}", "wait", 1));
	list = jo_result(&o);
	assert_int_equal(json_array_size(list), 1);	/* wait: cleared only by the next output */
	json_decref(list);
	feed(&o, "stream", json_pack("{s:s, s:s}", "name", "stdout", "text", "20%"));
	feed(&o, "clear_output", json_pack("{s:b}", "wait", 0));
	feed(&o, "error", json_pack("{s:s, s:s, s:[s]}", "ename", "ValueError", "evalue", "bad", "traceback", "tb"));
	jo_add_error(&o, "DeadKernelError", "gone");
	list = jo_result(&o);
	assert_int_equal(json_array_size(list), 2);
	assert_string_equal(field(list, 0, "ename"), "ValueError");
	assert_string_equal(field(list, 1, "output_type"), "error");
	assert_string_equal(json_string_value(json_array_get(json_object_get(json_array_get(list, 1), "traceback"), 0)),
			    "DeadKernelError: gone");
	json_decref(list);
	jo_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sign_known_vector),
		cmocka_unit_test(test_sign_empty_key),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_header_and_date),
		cmocka_unit_test(test_outputs),
		cmocka_unit_test(test_clear_output),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
