#include "agent/ext/mcp/mcp_jsonrpc.h"

#include <stdlib.h>
#include <string.h>

#define LINE_MAX_DEFAULT ((size_t)64 << 20)

static const char *const versions[] = { "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", NULL };

enum mcp_kind mcp_classify(const json_t *msg)
{
	const json_t *id;

	if (!json_is_object(msg) || !json_is_string(json_object_get(msg, "jsonrpc")) ||
	    strcmp(json_string_value(json_object_get(msg, "jsonrpc")), "2.0") != 0)
		return MCP_INVALID;
	id = json_object_get(msg, "id");
	if (json_object_get(msg, "method")) {
		if (!json_is_string(json_object_get(msg, "method")))
			return MCP_INVALID;
		if (!id || json_is_null(id))
			return MCP_NOTIFICATION;
		return json_is_string(id) || json_is_integer(id) ? MCP_REQUEST : MCP_INVALID;
	}
	if (id && (json_object_get(msg, "result") || json_is_object(json_object_get(msg, "error"))))
		return MCP_RESPONSE;
	return MCP_INVALID;
}

json_t *mcp_request(json_int_t id, const char *method, json_t *params)
{
	json_t *m = json_pack("{s:s, s:I, s:s}", "jsonrpc", "2.0", "id", id, "method", method);

	if (m && params)
		json_object_set_new(m, "params", params);
	else
		json_decref(params);
	return m;
}

json_t *mcp_notification(const char *method, json_t *params)
{
	json_t *m = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", method);

	if (m && params)
		json_object_set_new(m, "params", params);
	else
		json_decref(params);
	return m;
}

json_t *mcp_result(const json_t *id, json_t *result)
{
	return json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id ? id : json_null(), "result",
			 result ? result : json_object());
}

json_t *mcp_error(const json_t *id, int code, const char *message)
{
	return json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0", "id", id ? id : json_null(), "error", "code",
			 code, "message", message);
}

int mcp_is_response_to(const json_t *msg, json_int_t id)
{
	const json_t *got = json_object_get(msg, "id");

	return mcp_classify(msg) == MCP_RESPONSE && json_is_integer(got) && json_integer_value(got) == id;
}

char *mcp_encode_line(const json_t *msg, size_t *len)
{
	/* Compact output never holds a raw newline: JSON escapes it in strings. */
	char *text = json_dumps(msg, JSON_COMPACT | JSON_PRESERVE_ORDER), *line;
	size_t n;

	if (!text)
		return NULL;
	n = strlen(text);
	line = realloc(text, n + 2);
	if (!line) {
		free(text);
		return NULL;
	}
	line[n] = '\n';
	line[n + 1] = '\0';
	*len = n + 1;
	return line;
}

int mcp_lines_feed(struct mcp_lines *l, const char *data, size_t n)
{
	size_t max = l->max ? l->max : LINE_MAX_DEFAULT;

	if (l->len + n > l->cap) {
		size_t cap = l->cap ? l->cap : 4096;
		char *grown;

		while (cap < l->len + n)
			cap *= 2;
		grown = realloc(l->buf, cap + 1);
		if (!grown)
			return -1;
		l->buf = grown;
		l->cap = cap;
	}
	memcpy(l->buf + l->len, data, n);
	l->len += n;
	/* A line over the limit is thrown away up to its end, so one bad
	 * message cannot grow the buffer without bound. */
	if (l->len > max && !memchr(l->buf, '\n', l->len)) {
		l->len = 0;
		l->dropping = 1;
	}
	return 0;
}

char *mcp_lines_next(struct mcp_lines *l)
{
	char *nl, *line;
	size_t n;

	for (;;) {
		nl = l->len ? memchr(l->buf, '\n', l->len) : NULL;
		if (!nl)
			return NULL;
		n = (size_t)(nl - l->buf);
		if (l->dropping) {
			l->dropping = 0;
			memmove(l->buf, nl + 1, l->len - n - 1);
			l->len -= n + 1;
			continue;
		}
		line = malloc(n + 1);
		if (!line)
			return NULL;
		memcpy(line, l->buf, n);
		if (n && line[n - 1] == '\r')
			n--;
		line[n] = '\0';
		memmove(l->buf, nl + 1, l->len - (size_t)(nl - l->buf) - 1);
		l->len -= (size_t)(nl - l->buf) + 1;
		return line;
	}
}

void mcp_lines_free(struct mcp_lines *l)
{
	free(l->buf);
	l->buf = NULL;
	l->len = l->cap = 0;
	l->dropping = 0;
}

int mcp_version_known(const char *v)
{
	size_t i;

	for (i = 0; v && versions[i]; i++)
		if (strcmp(v, versions[i]) == 0)
			return 1;
	return 0;
}

const char *mcp_pick_version(const char *requested)
{
	size_t i;

	for (i = 0; requested && versions[i]; i++)
		if (strcmp(requested, versions[i]) == 0)
			return versions[i];
	return MCP_LATEST_VERSION;
}
