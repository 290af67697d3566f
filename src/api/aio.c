#include "aio.h"

#include <string.h>

int ax_aio_call(ax_http *aio, const char *path, const json_t *body, const char *no_data_message, json_t **data,
		ax_error *err)
{
	ax_http_response r;
	json_t *doc, *d;
	const char *msg;
	int rc = -1;

	*data = NULL;
	if (ax_http_request(aio, body ? "POST" : "GET", path, body, &r, err) < 0)
		return -1;
	doc = json_loadb(r.body, r.len, 0, NULL);
	msg = json_string_value(json_object_get(doc, "message"));
	if (!msg)
		msg = json_string_value(json_object_get(doc, "detail"));
	if (r.status < 200 || r.status > 299) {
		if (msg)
			ax_fail(err, AX_EXIT_FAILURE, "AIO", "AIO API error (%ld): %s", r.status, msg);
		else
			ax_fail(err, AX_EXIT_FAILURE, "AIO", "AIO API error (%ld): %.300s", r.status, r.body);
		if (r.status == 404 && msg && strstr(msg, "not found in configuration"))
			ax_error_hint(err, "Hint: run `allox-cli aio mcp servers -o json` and use a listed server.");
		goto out;
	}
	d = json_object_get(doc, "data");
	if (!json_is_object(doc) || json_is_false(json_object_get(doc, "success")) || !d || json_is_null(d)) {
		ax_fail(err, AX_EXIT_FAILURE, "AIO", "%s", msg && *msg ? msg : no_data_message);
		goto out;
	}
	*data = json_incref(d);
	rc = 0;
out:
	json_decref(doc);
	ax_http_response_free(&r);
	return rc;
}
