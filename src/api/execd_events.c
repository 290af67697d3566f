#include "api/execd_events.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

void ax_event_decoder_init(ax_event_decoder *d, const ax_command_events *ev, ax_error *err)
{
	memset(d, 0, sizeof *d);
	d->ev = ev;
	d->err = err;
}

/* LINE is not NUL-terminated: what follows it in the buffer is the next
 * event, or stale bytes, never part of it. */
static bool has_prefix(const char *line, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(line, prefix, n) == 0;
}

static int handle_event(ax_event_decoder *s, const char *line, size_t len)
{
	json_t *ev;
	const char *type, *text;
	json_error_t jerr;

	while (len && isspace((unsigned char)*line))
		line++, len--;
	if (!len || line[0] == ':' || has_prefix(line, len, "event:") || has_prefix(line, len, "id:") ||
	    has_prefix(line, len, "retry:"))
		return 0;
	if (has_prefix(line, len, "data:"))
		line += 5, len -= 5;
	ev = json_loadb(line, len, 0, &jerr);
	if (!ev) {
		ax_fail(s->err, AX_CODE_PROTOCOL, "execd sent an event that is not JSON: %s", jerr.text);
		return -1;
	}
	type = json_string_value(json_object_get(ev, "type"));
	text = json_string_value(json_object_get(ev, "text"));
	if (!type) {
		json_decref(ev);
		return 0;
	}
	if (strcmp(type, "init") == 0 && text) {
		snprintf(s->id, sizeof s->id, "%s", text);
	} else if (strcmp(type, "stdout") == 0 || strcmp(type, "stderr") == 0) {
		if (s->ev->on_output && s->ev->on_output(s->ev->user, type[3] == 'e', text ? text : "",
							  text ? json_string_length(json_object_get(ev, "text")) : 0,
							  !json_is_true(json_object_get(ev, "partial"))) < 0) {
			json_decref(ev);
			return -1;
		}
	} else if (strcmp(type, "execution_complete") == 0) {
		s->terminal = true;
		s->exit_code = 0;
	} else if (strcmp(type, "error") == 0) {
		const char *evalue = json_string_value(json_object_get(json_object_get(ev, "error"), "evalue"));
		char *end;
		long code = evalue ? strtol(evalue, &end, 10) : -1;

		s->terminal = true;
		if (evalue && end != evalue && !*end && code >= 0 && code <= 255) {
			s->exit_code = (int)code;
		} else {
			/* Not an exit status: the command could not run at all. */
			const char *ename = json_string_value(json_object_get(json_object_get(ev, "error"), "ename"));

			ax_fail(s->err, AX_CODE_EXEC, "%s: %s", ename ? ename : "error",
				evalue ? evalue : "the command failed");
			s->failed = true;
		}
	}
	json_decref(ev);
	return 0;
}

int ax_event_decoder_feed(ax_event_decoder *s, const char *data, size_t n)
{
	size_t start = 0, i;

	if (s->len + n > s->cap) {
		size_t cap = s->cap ? s->cap : 8192;
		char *grown;

		while (cap < s->len + n)
			cap *= 2;
		if (cap > AX_EVENT_MAX)
			return ax_fail(s->err, AX_CODE_PROTOCOL, "execd sent an event larger than %zu MiB",
				       AX_EVENT_MAX >> 20);
		grown = realloc(s->buf, cap);
		if (!grown)
			return ax_fail(s->err, AX_CODE_NOMEM, "out of memory");
		s->buf = grown;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, data, n);
	s->len += n;
	/* Each event ends with a newline (bare JSON per line, or SSE "data:" lines). */
	for (i = 0; i < s->len; i++) {
		if (s->buf[i] != '\n')
			continue;
		if (handle_event(s, s->buf + start, i - start) < 0)
			return -1;
		start = i + 1;
	}
	memmove(s->buf, s->buf + start, s->len - start);
	s->len -= start;
	return 0;
}

int ax_event_decoder_finish(ax_event_decoder *s)
{
	int rc = s->len ? handle_event(s, s->buf, s->len) : 0;

	s->len = 0;
	return rc;
}

void ax_event_decoder_free(ax_event_decoder *d)
{
	free(d->buf);
	d->buf = NULL;
	d->len = d->cap = 0;
}
