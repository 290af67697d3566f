#include "agent/execd/execd_event.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/execd/execd_http.h"

int ag_buf_add(struct ag_buf *b, const void *data, size_t len)
{
	if (b->off == b->len)
		b->off = b->len = 0;
	if (len > b->cap - b->len) {
		size_t cap = b->cap ? b->cap : 4096;
		char *grown;

		/* Reclaim the consumed head before growing. */
		if (b->off) {
			memmove(b->data, b->data + b->off, b->len - b->off);
			b->len -= b->off;
			b->off = 0;
		}
		while (len > cap - b->len)
			cap *= 2;
		if (cap != b->cap) {
			grown = realloc(b->data, cap);
			if (!grown)
				return -1;
			b->data = grown;
			b->cap = cap;
		}
	}
	memcpy(b->data + b->len, data, len);
	b->len += len;
	return 0;
}

size_t ag_buf_take(struct ag_buf *b, char *out, size_t max)
{
	size_t n = b->len - b->off;

	if (n > max)
		n = max;
	memcpy(out, b->data + b->off, n);
	b->off += n;
	return n;
}

size_t ag_buf_pending(const struct ag_buf *b)
{
	return b->len - b->off;
}

void ag_buf_free(struct ag_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof *b);
}

/* Length of the valid UTF-8 sequence at S (at most N bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t need, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		need = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < need)
		return 0;
	for (i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF are not UTF-8. */
	if ((need == 3 && cp < 0x800) || (need == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return need;
}

static void escape_byte(unsigned char c, char esc[8])
{
	if (c == '"' || c == '\\')
		snprintf(esc, 8, "\\%c", c);
	else if (c == '\n')
		strcpy(esc, "\\n");
	else if (c == '\r')
		strcpy(esc, "\\r");
	else if (c == '\t')
		strcpy(esc, "\\t");
	else if (c < 0x20)
		snprintf(esc, 8, "\\u%04x", c);
	else
		strcpy(esc, "\xef\xbf\xbd");	/* U+FFFD for a byte that is not UTF-8 */
}

int ag_json_escape(struct ag_buf *b, const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0, start = 0;

	if (ag_buf_add(b, "\"", 1) < 0)
		return -1;
	while (i < len) {
		unsigned char c = s[i];
		char esc[8];
		size_t n;

		if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
			i++;
			continue;
		}
		n = c >= 0x80 ? utf8_len(s + i, len - i) : 0;
		if (n) {
			i += n;
			continue;
		}
		/* Copy the plain run before the byte that needs care, in one go. */
		escape_byte(c, esc);
		if (ag_buf_add(b, text + start, i - start) < 0 || ag_buf_add(b, esc, strlen(esc)) < 0)
			return -1;
		start = ++i;
	}
	if (ag_buf_add(b, text + start, len - start) < 0)
		return -1;
	return ag_buf_add(b, "\"", 1);
}

static int add_str(struct ag_buf *b, const char *s)
{
	return ag_buf_add(b, s, strlen(s));
}

/* ,"timestamp":MS}\n\n: every event ends the same way. */
static int end_event(struct ag_buf *b)
{
	char tail[64];

	snprintf(tail, sizeof tail, ",\"timestamp\":%" PRId64 "}\n\n", ag_now_ms());
	return add_str(b, tail);
}

int ag_event_text(struct ag_buf *b, const char *type, const char *text, size_t len)
{
	if (add_str(b, "{\"type\":") < 0 || ag_json_escape(b, type, strlen(type)) < 0 ||
	    add_str(b, ",\"text\":") < 0 || ag_json_escape(b, text, len) < 0)
		return -1;
	return end_event(b);
}

int ag_event_output(struct ag_buf *b, const char *type, const char *text, size_t len, bool ended)
{
	if (add_str(b, "{\"type\":") < 0 || ag_json_escape(b, type, strlen(type)) < 0 ||
	    add_str(b, ",\"text\":") < 0 || ag_json_escape(b, text, len) < 0 ||
	    (!ended && add_str(b, ",\"partial\":true") < 0))
		return -1;
	return end_event(b);
}

int ag_event_complete(struct ag_buf *b, int64_t execution_ms)
{
	char head[96];

	snprintf(head, sizeof head, "{\"type\":\"execution_complete\",\"execution_time\":%" PRId64,
		 execution_ms);
	if (add_str(b, head) < 0)
		return -1;
	return end_event(b);
}

int ag_event_error(struct ag_buf *b, const char *ename, const char *evalue, const char *trace)
{
	if (add_str(b, "{\"type\":\"error\",\"error\":{\"ename\":") < 0 ||
	    ag_json_escape(b, ename, strlen(ename)) < 0 || add_str(b, ",\"evalue\":") < 0 ||
	    ag_json_escape(b, evalue, strlen(evalue)) < 0 || add_str(b, ",\"traceback\":[") < 0 ||
	    ag_json_escape(b, trace, strlen(trace)) < 0 || add_str(b, "]}") < 0)
		return -1;
	return end_event(b);
}

int ag_event_execution_count(struct ag_buf *b, uint64_t n)
{
	char head[96];

	snprintf(head, sizeof head, "{\"type\":\"execution_count\",\"execution_count\":%" PRIu64, n);
	if (add_str(b, head) < 0)
		return -1;
	return end_event(b);
}

int ag_event_exit_status(struct ag_buf *b, int status)
{
	char head[96];

	snprintf(head, sizeof head, "{\"type\":\"error\",\"error\":{\"ename\":\"\",\"evalue\":\"%d\",\"traceback\":[]}",
		 status);
	if (add_str(b, head) < 0)
		return -1;
	return end_event(b);
}
