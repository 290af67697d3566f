/*
 * libFuzzer target for the MCP client's decoding: the AIO bridge envelope
 * (src/api/mcp_client.c), Streamable HTTP replies as JSON or SSE and their
 * JSON-RPC result or error (src/api/mcp_http.c), and how a CallToolResult is
 * shown (src/cmd/mcp_show.c). The first byte picks the HTTP status, the
 * reply's content type and the request id; the rest is the body, exactly as
 * long as the server sent it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "api/mcp_client.h"
#include "api/mcp_http.h"
#include "lib/output/output_mcp.h"

static void check_bridge(long status, const char *body, size_t len)
{
	json_t *data = NULL, *doc = NULL;
	ax_error err;
	int rc;

	memset(&err, 0, sizeof err);
	rc = ax_mcp_decode_bridge(status, body, len, &data, &doc, &err);
	if (rc < 0)
		fuzz_check_error(&err);
	if ((rc == 1) != (status == 404) || (rc == 0) != (data != NULL) || (rc == 0) != (doc != NULL) ||
	    (rc == 0 && (json_is_null(data) || json_object_get(doc, "data") != data)))
		abort();
	json_decref(data);
	json_decref(doc);
}

static void check_show(const json_t *result)
{
	char *out = NULL;
	size_t out_len = 0;
	FILE *f = open_memstream(&out, &out_len);
	ax_error err;

	if (!f)
		abort();
	memset(&err, 0, sizeof err);
	/* A memory stream never fails: showing any result must succeed. */
	if (ax_mcp_show(f, result, NULL, &err) != 0)
		abort();
	(void)ax_mcp_is_error(result);
	fclose(f);
	free(out);
}

static void check_rpc(long status, bool sse, json_int_t id, const char *body, size_t len)
{
	json_t *reply = NULL, *result = NULL;
	ax_error err;
	int rc;

	memset(&err, 0, sizeof err);
	rc = ax_mcp_decode_reply("/mcp", status, sse ? "text/event-stream; charset=utf-8" : "application/json", body,
				 len, id, &reply, &err);
	if (rc < 0) {
		fuzz_check_error(&err);
		if (reply || status < 400)
			abort();
		return;
	}
	if (status >= 400 && len)
		abort();
	/* From a stream, only the response to ID is taken. */
	if (sse && reply &&
	    (json_integer_value(json_object_get(reply, "id")) != id || json_object_get(reply, "method")))
		abort();
	memset(&err, 0, sizeof err);
	if (ax_mcp_decode_result("/mcp", "tools/call", status, reply, &result, &err) < 0) {
		fuzz_check_error(&err);
		if (result)
			abort();
	} else {
		if (!json_is_object(result) || status != 200 || json_object_get(reply, "error"))
			abort();
		check_show(result);
	}
	json_decref(result);
	json_decref(reply);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	long status;
	char *body;
	json_t *doc;

	if (size < 1)
		return 0;
	status = fuzz_status(data[0], 200);
	body = fuzz_body(data + 1, size - 1);
	check_bridge(status, body, size - 1);
	check_rpc(status, data[0] & 0x40, 1 + (data[0] >> 7), body, size - 1);
	/* Any JSON as a tool result, including ones without a JSON-RPC envelope. */
	doc = json_loadb(body, size - 1, 0, NULL);
	if (doc) {
		check_show(doc);
		json_decref(doc);
	}
	free(body);
	return 0;
}
