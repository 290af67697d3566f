/* The execd event-stream decoder: events split anywhere, SSE framing,
 * exit statuses, failures, and lines shorter than a field prefix. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "api/execd_events.h"

typedef struct sink {
	char text[4096];
	size_t len;
} sink;

static int on_output(void *user, bool is_stderr, const char *text, size_t len, bool ended)
{
	sink *s = user;

	assert_true(s->len + len + 3 < sizeof s->text);
	s->text[s->len++] = is_stderr ? 'E' : 'O';
	memcpy(s->text + s->len, text, len);
	s->len += len;
	s->text[s->len++] = ended ? '|' : '+';
	s->text[s->len] = '\0';
	return 0;
}

static const char stream_text[] =
	"{\"type\":\"init\",\"text\":\"cmd-1\"}\n"
	"{\"type\":\"stdout\",\"text\":\"one\"}\n"
	"{\"type\":\"stderr\",\"text\":\"two\"}\n"
	"{\"type\":\"execution_complete\",\"execution_time\":3}\n";

/* Feed TEXT in pieces of CHUNK bytes; the decoder's result. */
static int decode(const char *text, size_t chunk, sink *out, ax_event_decoder *d, ax_error *err)
{
	static ax_command_events ev = { on_output, NULL };
	size_t off = 0, len = strlen(text);

	ev.user = out;
	memset(out, 0, sizeof *out);
	ax_event_decoder_init(d, &ev, err);
	while (off < len) {
		size_t n = len - off < chunk ? len - off : chunk;

		if (ax_event_decoder_feed(d, text + off, n) < 0)
			return -1;
		off += n;
	}
	return ax_event_decoder_finish(d);
}

static void test_any_split(void **state)
{
	(void)state;
	for (size_t chunk = 1; chunk <= sizeof stream_text; chunk++) {
		ax_event_decoder d;
		ax_error err;
		sink out;

		assert_int_equal(decode(stream_text, chunk, &out, &d, &err), 0);
		assert_string_equal(out.text, "Oone|Etwo|");
		assert_string_equal(d.id, "cmd-1");
		assert_true(d.terminal);
		assert_false(d.failed);
		assert_int_equal(d.exit_code, 0);
		ax_event_decoder_free(&d);
	}
}

/* A line longer than the agent's event (or a last line without a newline)
 * comes with "partial":true: no newline is to be added after it. */
static void test_partial_lines(void **state)
{
	static const char text[] = "{\"type\":\"stdout\",\"text\":\"ab\",\"partial\":true}\n"
				   "{\"type\":\"stdout\",\"text\":\"c\"}\n"
				   "{\"type\":\"stderr\",\"text\":\"tail\",\"partial\":true}\n"
				   "{\"type\":\"stdout\",\"text\":\"d\",\"partial\":false}\n"
				   "{\"type\":\"execution_complete\",\"execution_time\":1}\n";
	ax_event_decoder d;
	ax_error err;
	sink out;

	(void)state;
	assert_int_equal(decode(text, sizeof text, &out, &d, &err), 0);
	assert_string_equal(out.text, "Oab+Oc|Etail+Od|");
	ax_event_decoder_free(&d);
}

static void test_sse_and_exit_status(void **state)
{
	ax_event_decoder d;
	ax_error err;
	sink out;

	(void)state;
	assert_int_equal(decode(": keep-alive\nevent: x\nid: 7\nretry: 10\n\n"
				"data: {\"type\":\"stdout\",\"text\":\"hi\"}\n\n"
				"data: {\"type\":\"error\",\"error\":{\"ename\":\"CommandExecError\",\"evalue\":\"3\"}}",
				5, &out, &d, &err),
			 0);
	assert_string_equal(out.text, "Ohi|");
	assert_true(d.terminal);
	assert_false(d.failed);
	assert_int_equal(d.exit_code, 3);
	ax_event_decoder_free(&d);
}

static void test_error_that_is_no_status(void **state)
{
	ax_event_decoder d;
	ax_error err;
	sink out;

	(void)state;
	assert_int_equal(decode("{\"type\":\"error\",\"error\":{\"ename\":\"Spawn\",\"evalue\":\"no shell\"}}\n", 64,
				&out, &d, &err),
			 0);
	assert_true(d.terminal);
	assert_true(d.failed);
	assert_string_equal(err.message, "Spawn: no shell");
	ax_event_decoder_free(&d);
}

static void test_not_json(void **state)
{
	ax_event_decoder d;
	ax_error err;
	sink out;

	(void)state;
	assert_int_equal(decode("{\"type\":\"stdout\"\n", 64, &out, &d, &err), -1);
	assert_int_equal(err.code, AX_CODE_PROTOCOL);
	ax_event_decoder_free(&d);
}

/* Found by fuzz_events: a line shorter than "event:" was compared with the
 * bytes after it, and stale bytes of an earlier line could make a broken
 * last event look like a field line to skip. */
static void test_short_line_is_not_a_field(void **state)
{
	static ax_command_events ev = { on_output, NULL };
	ax_event_decoder d;
	ax_error err;
	sink out = { 0 };

	(void)state;
	ev.user = &out;
	ax_event_decoder_init(&d, &ev, &err);
	assert_int_equal(ax_event_decoder_feed(&d, "event: x\n", 9), 0);
	assert_int_equal(ax_event_decoder_feed(&d, "e", 1), 0);
	assert_int_equal(ax_event_decoder_finish(&d), -1);
	assert_int_equal(err.code, AX_CODE_PROTOCOL);
	ax_event_decoder_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_any_split),
		cmocka_unit_test(test_partial_lines),
		cmocka_unit_test(test_sse_and_exit_status),
		cmocka_unit_test(test_error_that_is_no_status),
		cmocka_unit_test(test_not_json),
		cmocka_unit_test(test_short_line_is_not_a_field),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
