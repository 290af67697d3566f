/* Reading a request's body and query. */
#include "engine/request.h"

#include <errno.h>
#include <stdlib.h>

json_t *ax_parse_body(const ax_req *req, ax_resp *resp, bool required)
{
	json_error_t jerr;
	json_t *body;

	if (!req->body_len) {
		if (required)
			ax_resp_error(resp, 400, "SANDBOX::INVALID_PARAMETER", "a JSON request body is required");
		return required ? NULL : json_object();
	}
	body = json_loadb(req->body, req->body_len, 0, &jerr);
	if (!body || !json_is_object(body)) {
		json_decref(body);
		ax_resp_error(resp, 400, "SANDBOX::INVALID_PARAMETER", "request body is not a JSON object: %s",
			      body ? "wrong type" : jerr.text);
		return NULL;
	}
	return body;
}

const char *ax_query(const ax_req *req, const char *name)
{
	return json_string_value(json_array_get(json_object_get(req->query, name), 0));
}

int ax_int_param(const ax_req *req, const char *name, long def, long min, long max, long *out, ax_resp *resp)
{
	const char *s = ax_query(req, name);
	char *end;
	long v;

	*out = def;
	if (!s)
		return 0;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		ax_resp_error(resp, 400, "SANDBOX::INVALID_PARAMETER", "%s must be an integer from %ld to %ld", name, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int ax_page_param(const ax_req *req, ax_page *page, ax_resp *resp)
{
	if (ax_int_param(req, "page", 1, 1, 1000000, &page->page, resp) < 0 ||
	    ax_int_param(req, "pageSize", 20, 1, 200, &page->size, resp) < 0)
		return -1;
	return 0;
}
