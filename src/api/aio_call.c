#include "api/aio_call.h"

#include <string.h>

int ax_aio_decode(long status, const char *body, size_t len, const char *no_data_message, json_t **data,
		  ax_error *err)
{
	json_t *doc = json_loadb(body, len, 0, NULL), *d;
	const char *msg = json_string_value(json_object_get(doc, "message"));
	int rc = -1;

	*data = NULL;
	if (!msg)
		msg = json_string_value(json_object_get(doc, "detail"));
	if (status < 200 || status > 299) {
		if (msg)
			ax_fail(err, AX_CODE_AIO, "AIO API error (%ld): %s", status, msg);
		else
			ax_fail(err, AX_CODE_AIO, "AIO API error (%ld): %.*s", status,
				(int)(len > 300 ? 300 : len), body);
		if (status == 404 && msg && strstr(msg, "not found in configuration"))
			ax_error_hint(err, "Hint: run `allox-cli aio mcp servers -o json` and use a listed server.");
		goto out;
	}
	d = json_object_get(doc, "data");
	if (!json_is_object(doc) || json_is_false(json_object_get(doc, "success")) || !d || json_is_null(d)) {
		ax_fail(err, AX_CODE_AIO, "%s", msg && *msg ? msg : no_data_message);
		goto out;
	}
	*data = json_incref(d);
	rc = 0;
out:
	json_decref(doc);
	return rc;
}

int ax_aio_call(ax_http *aio, const char *path, const json_t *body, const char *no_data_message, json_t **data,
		ax_error *err)
{
	ax_http_response r;
	int rc;

	*data = NULL;
	if (ax_http_request(aio, body ? "POST" : "GET", path, body, &r, err) < 0)
		return -1;
	rc = ax_aio_decode(r.status, r.body, r.len, no_data_message, data, err);
	ax_http_response_free(&r);
	return rc;
}
