/*
 * libFuzzer target for the execd event-stream decoder (what a sandbox sends
 * back for `run`): make fuzz. The stream is fed whole and again in chunks
 * whose sizes come from the input's first byte: both runs must decode the
 * same output bytes and reach the same end state, whatever the chunking.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/execd_events.h"

typedef struct sink {
	char *text;
	size_t len;
} sink;

static int on_output(void *user, bool is_stderr, const char *text, size_t len, bool ended)
{
	sink *s = user;
	char *grown = realloc(s->text, s->len + len + 1);

	if (!grown)
		abort();
	s->text = grown;
	s->text[s->len++] = (char)(is_stderr ? (ended ? 'E' : 'e') : (ended ? 'O' : 'o'));
	memcpy(s->text + s->len, text, len);
	s->len += len;
	return 0;
}

static int decode(const uint8_t *data, size_t size, size_t chunk, sink *out, ax_event_decoder *d, ax_error *err)
{
	static const ax_command_events ev0 = { on_output, NULL };
	ax_command_events ev = ev0;
	size_t off = 0;
	int rc = 0;

	ev.user = out;
	ax_event_decoder_init(d, &ev, err);
	while (off < size && rc == 0) {
		size_t n = size - off < chunk ? size - off : chunk;

		rc = ax_event_decoder_feed(d, (const char *)data + off, n);
		off += n;
	}
	if (rc == 0)
		rc = ax_event_decoder_finish(d);
	if (rc != 0 && (!err->message[0] || strchr(err->message, '\n')))
		abort();
	if (strlen(d->id) >= sizeof d->id)
		abort();
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sink whole = { 0 }, parts = { 0 };
	ax_event_decoder a, b;
	ax_error ea, eb;
	size_t chunk;
	int ra, rb;

	if (size < 1)
		return 0;
	chunk = (size_t)data[0] % 17 + 1;
	data++, size--;
	ra = decode(data, size, size ? size : 1, &whole, &a, &ea);
	rb = decode(data, size, chunk, &parts, &b, &eb);
	if (ra != rb || whole.len != parts.len || (whole.len && memcmp(whole.text, parts.text, whole.len) != 0))
		abort();
	if (ra == 0 && (a.terminal != b.terminal || a.exit_code != b.exit_code || a.failed != b.failed ||
			strcmp(a.id, b.id) != 0))
		abort();
	ax_event_decoder_free(&a);
	ax_event_decoder_free(&b);
	free(whole.text);
	free(parts.text);
	return 0;
}
