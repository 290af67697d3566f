/*
 * libFuzzer target for the lifecycle client's decoding (src/api/
 * lifecycle_decode.c): answers, pages, endpoints, sandbox and snapshot
 * objects. The first byte picks the HTTP status and the page number; the
 * rest is the body, exactly as long as the server sent it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "api/lifecycle_decode.h"

static bool string_or_null(const json_t *v)
{
	return json_is_string(v) || json_is_null(v);
}

static void check_sandbox(const json_t *item)
{
	json_t *o = ax_lc_sandbox_object(item);
	char *text;

	if (!json_is_object(o) || json_object_size(o) != 5 || !string_or_null(json_object_get(o, "id")) ||
	    !json_is_string(json_object_get(o, "state")) || !string_or_null(json_object_get(o, "image")) ||
	    !string_or_null(json_object_get(o, "expires_at")) || !json_is_string(json_object_get(o, "created_at")))
		abort();
	/* What -o json prints must always be printable. */
	text = json_dumps(o, JSON_COMPACT);
	if (!text)
		abort();
	free(text);
	json_decref(o);
}

static void check_snapshot(const json_t *item)
{
	static const char *const keys[] = { "id", "sandbox_id", "name", "state", "reason", "message", "created_at" };
	json_t *o = ax_lc_snapshot_object(item);
	size_t i;

	if (!json_is_object(o) || json_object_size(o) != sizeof keys / sizeof keys[0])
		abort();
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (!json_object_get(o, keys[i]))
			abort();
	json_decref(o);
}

static void check_page(const json_t *doc, int page)
{
	json_t *all = json_array(), *item;
	ax_error err;
	bool more = true;
	size_t i;

	memset(&err, 0, sizeof err);
	if (ax_lc_decode_page(doc, "/sandboxes", page, all, &more, &err) < 0) {
		fuzz_check_error(&err);
		if (more || json_array_size(all))
			abort();
	} else {
		size_t n = json_array_size(json_object_get(doc, "items"));
		const json_t *pages = json_object_get(json_object_get(doc, "pagination"), "totalPages");

		if (json_array_size(all) != n || (n == 0 && more) ||
		    (json_is_integer(pages) && page >= json_integer_value(pages) && more))
			abort();
	}
	json_array_foreach(all, i, item) {
		check_sandbox(item);
		check_snapshot(item);
	}
	json_decref(all);
}

static void check_endpoint(const json_t *doc)
{
	const char *ep = json_string_value(json_object_get(doc, "endpoint"));
	json_t *headers = NULL;
	char *url = NULL;
	ax_error err;

	memset(&err, 0, sizeof err);
	if (ax_lc_decode_endpoint(doc, 44772, &url, &headers, &err) < 0) {
		fuzz_check_error(&err);
		if (url || headers || (ep && *ep))
			abort();
		return;
	}
	if (!ep || strncmp(url, "http://", 7) != 0 || strcmp(url + 7, ep) != 0 || !json_is_object(headers))
		abort();
	free(url);
	json_decref(headers);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	long status;
	int page;
	char *body;
	json_t *doc = NULL;
	ax_error err;
	int rc;

	if (size < 1)
		return 0;
	status = fuzz_status(data[0], 200);
	page = data[0] >> 5;
	body = fuzz_body(data + 1, size - 1);
	memset(&err, 0, sizeof err);
	rc = ax_lc_decode_answer("GET", "/sandboxes", 200, status, body, size - 1, &doc, &err);
	if (rc < 0) {
		fuzz_check_error(&err);
		if (doc)
			abort();
	} else if (status != 200 || (size > 1) != (doc != NULL)) {
		abort();
	}
	if (doc) {
		check_page(doc, page + 1);
		check_endpoint(doc);
		check_sandbox(doc);
		check_snapshot(doc);
	}
	json_decref(doc);
	free(body);
	return 0;
}
