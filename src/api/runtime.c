#include "api/runtime.h"

#include <stdlib.h>
#include <string.h>

int ax_runtime_connect(ax_lifecycle *lc, const char *id, int port, long timeout_s, ax_http *out, ax_error *err)
{
	char *url = NULL;
	json_t *headers = NULL, *v;
	const char *k;
	int rc;

	if (ax_lc_endpoint(lc, id, port, &url, &headers, err) < 0)
		return -1;
	rc = ax_http_init(out, url, NULL, timeout_s, err);
	if (rc == 0) {
		json_object_foreach(headers, k, v)
			ax_http_set_header(out, k, json_string_value(v));
		out->verbose = lc->http.verbose;
	}
	free(url);
	json_decref(headers);
	return rc;
}

void ax_runtime_explain(ax_lifecycle *lc, const char *id, ax_error *err)
{
	json_t *s = NULL;
	ax_error gerr;
	const json_t *st;
	const char *state, *msg;

	if (!lc || !id || !err || err->code != AX_CODE_CONNECTION)
		return;
	if (ax_lc_get_sandbox(lc, id, &s, &gerr) == 0) {
		st = json_object_get(s, "status");
		state = json_string_value(json_object_get(st, "state"));
		msg = json_string_value(json_object_get(st, "message"));
		if (state && strcmp(state, "Running") != 0)
			ax_fail(err, AX_CODE_SANDBOX_NOT_RUNNING, "sandbox %s is %s%s%.600s", id, state,
				msg && *msg ? ": " : "", msg && *msg ? msg : "");
	}
	json_decref(s);
}
