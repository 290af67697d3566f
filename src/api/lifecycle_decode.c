#include "api/lifecycle_decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Turn an error answer into one line: the spec's {code, message} envelope,
 * FastAPI's 422 {"detail": [...]}, or the raw body. */
static int server_error(long status, const char *body, size_t len, ax_error *err)
{
	json_t *doc = json_loadb(body, len, 0, NULL);
	const char *code = json_string_value(json_object_get(doc, "code"));
	const char *msg = json_string_value(json_object_get(doc, "message"));
	int rc;

	if (code && !*code)
		code = NULL;
	if (code || msg) {
		rc = ax_fail(err, AX_CODE_HTTP, "Sandbox error [%s]: %s", code ? code : "HTTP", msg ? msg : "(no message)");
		ax_error_peer_code(err, code);
	} else if (len) {
		rc = ax_fail(err, AX_CODE_HTTP, "Sandbox error [HTTP %ld]: %.*s", status,
			     (int)(len > 400 ? 400 : len), body);
	} else {
		rc = ax_fail(err, AX_CODE_HTTP, "Sandbox error [HTTP %ld]: empty response", status);
	}
	json_decref(doc);
	return rc;
}

int ax_lc_decode_answer(const char *method, const char *path, long expect, long status, const char *body,
			size_t len, json_t **out, ax_error *err)
{
	json_error_t jerr;

	if (out)
		*out = NULL;
	if (status != expect)
		return server_error(status, body, len, err);
	if (!out || !len)
		return 0;
	*out = json_loadb(body, len, 0, &jerr);
	if (!*out)
		return ax_fail(err, AX_CODE_PROTOCOL, "%s %s: invalid JSON from the server: %s", method, path,
			       jerr.text);
	return 0;
}

int ax_lc_decode_page(const json_t *doc, const char *collection, int page, json_t *all, bool *more, ax_error *err)
{
	const json_t *items = json_object_get(doc, "items"), *item;
	const json_t *pagination = json_object_get(doc, "pagination");
	const json_t *pages = json_object_get(pagination, "totalPages");
	size_t i;

	*more = false;
	if (!json_is_array(items))
		return ax_fail(err, AX_CODE_PROTOCOL, "GET %s: the server's answer has no items", collection);
	json_array_foreach(items, i, item)
		json_array_append(all, (json_t *)item);
	/* Trust hasNextPage only as far as totalPages (required by the spec)
	 * goes, 0 included: a server that always says "more" must not keep us
	 * paging (prism's mock answers totalPages 0 and hasNextPage true). */
	*more = json_is_true(json_object_get(pagination, "hasNextPage")) && json_array_size(items) > 0 &&
		!(json_is_integer(pages) && page >= json_integer_value(pages));
	return 0;
}

int ax_lc_decode_endpoint(const json_t *doc, int port, char **url, json_t **headers, ax_error *err)
{
	const char *ep = json_string_value(json_object_get(doc, "endpoint"));
	const json_t *h = json_object_get(doc, "headers");

	*url = NULL;
	if (headers)
		*headers = NULL;
	if (!ep || !*ep)
		return ax_fail(err, AX_CODE_PROTOCOL, "the server returned no endpoint for port %d", port);
	if (asprintf(url, "http://%s", ep) < 0) {
		*url = NULL;
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	}
	if (headers)
		*headers = json_is_object(h) ? json_incref((json_t *)h) : json_object();
	return 0;
}

/* The server's VALUE when it is a string, else null. */
static json_t *string_or_null(const json_t *value)
{
	return json_is_string(value) ? json_incref((json_t *)value) : json_null();
}

static json_t *image_of(const json_t *sbx)
{
	const char *uri = json_string_value(json_object_get(json_object_get(sbx, "image"), "uri"));
	const char *snap = json_string_value(json_object_get(sbx, "snapshotId"));

	/* A restored sandbox reports its checkpoint instead of an image. */
	if (!uri && snap)
		return json_sprintf("checkpoint:%s", snap);
	return uri ? json_string(uri) : json_null();
}

json_t *ax_lc_sandbox_object(const json_t *sbx)
{
	const char *state = json_string_value(json_object_get(json_object_get(sbx, "status"), "state"));
	const char *created = json_string_value(json_object_get(sbx, "createdAt"));
	json_t *o = json_object();

	json_object_set_new(o, "id", string_or_null(json_object_get(sbx, "id")));
	json_object_set_new(o, "state", json_string(state ? state : "Unknown"));
	json_object_set_new(o, "image", image_of(sbx) ?: json_null());
	json_object_set_new(o, "expires_at", string_or_null(json_object_get(sbx, "expiresAt")));
	json_object_set_new(o, "created_at", json_string(created ? created : ""));
	return o;
}

/* The server's VALUE (any JSON) or null. */
static json_t *copy_or_null(const json_t *value)
{
	return value ? json_deep_copy(value) : json_null();
}

json_t *ax_lc_snapshot_object(const json_t *snap)
{
	const json_t *st = json_object_get(snap, "status");
	json_t *o = json_object();

	json_object_set_new(o, "id", copy_or_null(json_object_get(snap, "id")));
	json_object_set_new(o, "sandbox_id", copy_or_null(json_object_get(snap, "sandboxId")));
	json_object_set_new(o, "name", copy_or_null(json_object_get(snap, "name")));
	json_object_set_new(o, "state", copy_or_null(json_object_get(st, "state")));
	json_object_set_new(o, "reason", copy_or_null(json_object_get(st, "reason")));
	json_object_set_new(o, "message", copy_or_null(json_object_get(st, "message")));
	json_object_set_new(o, "created_at", copy_or_null(json_object_get(snap, "createdAt")));
	return o;
}
