#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/ag_error.h"
#include "agent/core/route.h"

enum MHD_Result ag_reply_queue(struct ag_req *req, unsigned status, struct MHD_Response *resp)
{
	enum MHD_Result rc;
	const char *rid;

	if (!resp)
		return MHD_NO;
	/* Responses describe live sandbox state; a proxy must never reuse one. */
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	/* The client's X-Request-ID comes back, as from the engine: the official
	 * SDK reports it with a failed execd call (SandboxApiException.requestId). */
	rid = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, "X-Request-ID");
	if (rid && *rid && strlen(rid) <= 128 && !strpbrk(rid, "\r\n"))
		MHD_add_response_header(resp, "X-Request-ID", rid);
	rc = MHD_queue_response(req->conn, status, resp);
	MHD_destroy_response(resp);
	req->responded = 1;
	return rc;
}

struct MHD_Response *ag_json_response(json_t *body)
{
	char *text = body ? json_dumps(body, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	struct MHD_Response *resp;

	json_decref(body);
	if (!text)
		return NULL;
	/* jansson allocates with malloc, so MHD may free() the buffer. */
	resp = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(text);
		return NULL;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
	return resp;
}

enum MHD_Result ag_reply_json(struct ag_req *req, unsigned status, json_t *body)
{
	return ag_reply_queue(req, status, ag_json_response(body));
}

enum MHD_Result ag_reply_empty(struct ag_req *req, unsigned status)
{
	return ag_reply_queue(req, status,
			      MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT));
}

json_t *ag_vfailure(const char *fmt, va_list ap)
{
	char msg[1024];
	json_t *o = json_object();

	vsnprintf(msg, sizeof msg, fmt, ap);
	json_object_set_new(o, "success", json_false());
	json_object_set_new(o, "message", ag_json_text(msg));
	return o;
}

enum MHD_Result ag_reply_failure(struct ag_req *req, unsigned status, const char *fmt, ...)
{
	json_t *o;
	va_list ap;

	va_start(ap, fmt);
	o = ag_vfailure(fmt, ap);
	va_end(ap);
	return ag_reply_json(req, status, o);
}

enum MHD_Result ag_reply_error(struct ag_req *req, const struct ag_error *err)
{
	return ag_reply_failure(req, err->status ? err->status : MHD_HTTP_INTERNAL_SERVER_ERROR, "%s", err->message);
}

json_t *ag_vcode_error(const char *code, const char *fmt, va_list ap)
{
	char msg[1024];
	json_t *o = json_object();

	vsnprintf(msg, sizeof msg, fmt, ap);
	json_object_set_new(o, "code", json_string(code));
	json_object_set_new(o, "message", ag_json_text(msg));
	return o;
}

int ag_path_is_aio(const char *path)
{
	return strncmp(path, "/v1/", 4) == 0 || strcmp(path, "/mcp") == 0 || strncmp(path, "/mcp/", 5) == 0;
}

json_t *ag_refusal(const char *path, const char *code, const char *fmt, ...)
{
	json_t *o;
	va_list ap;

	va_start(ap, fmt);
	o = ag_path_is_aio(path) ? ag_vfailure(fmt, ap) : ag_vcode_error(code, fmt, ap);
	va_end(ap);
	return o;
}

json_t *ag_envelope(const char *message, json_t *data)
{
	json_t *o = json_object();

	json_object_set_new(o, "success", json_true());
	json_object_set_new(o, "message", message ? json_string(message) : json_null());
	json_object_set_new(o, "data", data ? data : json_null());
	json_object_set_new(o, "hint", json_null());
	return o;
}

json_t *ag_json_text(const char *text)
{
	json_t *s = json_string(text);
	char *copy;
	size_t i;

	if (s)
		return s;
	copy = strdup(text);
	if (!copy)
		return json_null();
	for (i = 0; copy[i]; i++)
		if ((unsigned char)copy[i] >= 0x80)
			copy[i] = '?';
	s = json_string(copy);
	free(copy);
	return s ? s : json_null();
}
