#include "agent/ext/browser/cdp_msg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cdp_msg_parse(const char *buf, size_t len, json_t **doc, struct cdp_msg *m)
{
	json_t *d = json_loadb(buf, len, 0, NULL), *id, *method;

	memset(m, 0, sizeof *m);
	*doc = NULL;
	if (!json_is_object(d))
		goto bad;
	m->session = json_string_value(json_object_get(d, "sessionId"));
	id = json_object_get(d, "id");
	method = json_object_get(d, "method");
	if (json_is_integer(id)) {
		m->kind = CDP_MSG_RESPONSE;
		m->id = json_integer_value(id);
		m->error = json_object_get(d, "error");
		if (m->error && !json_is_object(m->error))
			goto bad;
		m->result = m->error ? NULL : json_object_get(d, "result");
		if (!m->error && !json_is_object(m->result))
			goto bad;
	} else if (!id && json_is_string(method)) {
		m->kind = CDP_MSG_EVENT;
		m->method = json_string_value(method);
		m->params = json_object_get(d, "params");
	} else {
		goto bad;
	}
	*doc = d;
	return 0;
bad:
	json_decref(d);
	memset(m, 0, sizeof *m);
	return -1;
}

char *cdp_msg_command(long long id, const char *method, const json_t *params, const char *session, size_t *len)
{
	json_t *o;
	char *text;

	if (!method)
		return NULL;
	o = json_pack("{s:I, s:s}", "id", (json_int_t)id, "method", method);
	if (!o)
		return NULL;
	/* A deep copy keeps the caller's PARAMS untouched (const). */
	json_object_set_new(o, "params", params ? json_deep_copy(params) : json_object());
	if (session)
		json_object_set_new(o, "sessionId", json_string(session));
	text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (text && len)
		*len = strlen(text);
	return text;
}

void cdp_msg_error_text(const json_t *error, char *buf, size_t size)
{
	const char *msg = json_string_value(json_object_get(error, "message"));
	const char *data = json_string_value(json_object_get(error, "data"));
	json_t *code = json_object_get(error, "code");

	snprintf(buf, size, "%s (code %lld)%s%s", msg ? msg : "unknown CDP error",
		 json_is_integer(code) ? (long long)json_integer_value(code) : 0LL, data ? ": " : "", data ? data : "");
}
