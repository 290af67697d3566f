#include "runtime.h"

#include <stdlib.h>

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
