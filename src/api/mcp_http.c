#include "config.h"

#include "api/mcp_http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PROTOCOL_VERSION "2025-11-25"
#define MAX_PAGES 100

static int sse_dispatch(const char *data, size_t len, json_int_t id, json_t **found)
{
	json_t *msg;
	const json_t *got;

	if (!len)
		return 0;   /* priming events carry no data */
	msg = json_loadb(data, len, 0, NULL);
	got = json_object_get(msg, "id");
	if (json_is_integer(got) && json_integer_value(got) == id && !json_object_get(msg, "method")) {
		*found = msg;
		return 1;
	}
	json_decref(msg);
	return 0;
}

json_t *ax_mcp_sse_find(const char *body, size_t len, json_int_t id)
{
	char *data = malloc(len + 1);
	size_t dlen = 0, i = 0;
	json_t *found = NULL;

	if (!data)
		return NULL;
	while (i <= len && !found) {
		size_t start = i, end;
		const char *line;
		size_t llen;

		while (i < len && body[i] != '\n' && body[i] != '\r')
			i++;
		end = i;
		if (i < len && body[i] == '\r' && i + 1 < len && body[i + 1] == '\n')
			i++;
		i++;
		line = body + start;
		llen = end - start;
		if (llen == 0) {
			/* A blank line dispatches the event. */
			if (sse_dispatch(data, dlen, id, &found))
				break;
			dlen = 0;
			continue;
		}
		if (llen >= 5 && strncmp(line, "data:", 5) == 0) {
			size_t skip = llen > 5 && line[5] == ' ' ? 6 : 5;

			if (dlen)
				data[dlen++] = '\n';
			memcpy(data + dlen, line + skip, llen - skip);
			dlen += llen - skip;
		}
	}
	if (!found)
		sse_dispatch(data, dlen, id, &found);
	free(data);
	return found;
}

/* POST MSG; *REPLY (may be NULL for notifications) is the response to ID. */
static int post(ax_mcp_http *c, const json_t *msg, json_int_t id, long *status, json_t **reply, ax_error *err)
{
	char session[256], version[128];
	/* Both types in Accept, literally: servers check for each. */
	const char *headers[4] = { "Accept: application/json, text/event-stream" };
	size_t n = 1;
	ax_http_response r;
	int rc;

	*reply = NULL;
	if (c->session) {
		snprintf(session, sizeof session, "Mcp-Session-Id: %s", c->session);
		headers[n++] = session;
	}
	if (c->version) {
		snprintf(version, sizeof version, "MCP-Protocol-Version: %s", c->version);
		headers[n++] = version;
	}
	if (ax_http_request_headers(c->http, "POST", c->path, headers, msg, &r, err) < 0)
		return -1;
	*status = r.status;
	rc = ax_mcp_decode_reply(c->path, r.status, ax_http_last_header(c->http, "Content-Type"), r.body, r.len, id,
				 reply, err);
	ax_http_response_free(&r);
	return rc;
}

int ax_mcp_decode_reply(const char *path, long status, const char *content_type, const char *body, size_t len,
			json_int_t id, json_t **reply, ax_error *err)
{
	*reply = NULL;
	if (status == 200 && id > 0 && len) {
		if (content_type && strncasecmp(content_type, "text/event-stream", 17) == 0)
			*reply = ax_mcp_sse_find(body, len, id);
		else
			*reply = json_loadb(body, len, 0, NULL);
	} else if (status >= 400 && len) {
		json_t *doc = json_loadb(body, len, 0, NULL);
		const char *m = json_string_value(json_object_get(json_object_get(doc, "error"), "message"));

		if (m)
			ax_fail(err, AX_CODE_MCP, "MCP endpoint %s: HTTP %ld: %.300s", path, status, m);
		else
			ax_fail(err, AX_CODE_MCP, "MCP endpoint %s: HTTP %ld: %.*s", path, status,
				(int)(len > 300 ? 300 : len), body);
		json_decref(doc);
		return -1;
	}
	return 0;
}

int ax_mcp_decode_result(const char *path, const char *method, long status, const json_t *reply, json_t **result,
			 ax_error *err)
{
	const json_t *e;

	*result = NULL;
	if (status != 200 || !json_is_object(reply))
		return ax_fail(err, AX_CODE_MCP, "MCP endpoint %s: no reply to %s (HTTP %ld)", path, method,
			       status);
	e = json_object_get(reply, "error");
	if (e)
		return ax_fail(err, AX_CODE_MCP, "MCP error %lld: %s",
			       (long long)json_integer_value(json_object_get(e, "code")),
			       json_string_value(json_object_get(e, "message")) ?: "");
	if (!json_is_object(json_object_get(reply, "result")))
		return ax_fail(err, AX_CODE_MCP, "MCP endpoint %s: the reply to %s has no result", path,
			       method);
	*result = json_incref(json_object_get(reply, "result"));
	return 0;
}

static int exchange(ax_mcp_http *c, const char *method, json_t *params, json_t **result, ax_error *err)
{
	json_int_t id = ++c->next_id;
	json_t *msg = json_pack("{s:s, s:I, s:s}", "jsonrpc", "2.0", "id", id, "method", method), *reply = NULL;
	long status = 0;
	int rc = -1;

	*result = NULL;
	if (params)
		json_object_set_new(msg, "params", params);
	if (post(c, msg, id, &status, &reply, err) == 0)
		rc = ax_mcp_decode_result(c->path, method, status, reply, result, err);
	json_decref(msg);
	json_decref(reply);
	return rc;
}

int ax_mcp_http_open(ax_mcp_http *c, ax_http *http, const char *path, ax_error *err)
{
	json_t *result = NULL, *note;
	const char *session, *version;
	long status = 0;
	json_t *none = NULL;
	int rc;

	memset(c, 0, sizeof *c);
	c->http = http;
	c->path = path;
	if (exchange(c, "initialize",
		     json_pack("{s:s, s:{}, s:{s:s, s:s}}", "protocolVersion", PROTOCOL_VERSION, "capabilities",
			       "clientInfo", "name", "allox-cli", "version", PACKAGE_VERSION),
		     &result, err) < 0)
		return -1;
	session = ax_http_last_header(http, "Mcp-Session-Id");
	version = json_string_value(json_object_get(result, "protocolVersion"));
	c->session = session ? strdup(session) : NULL;
	c->version = strdup(version ? version : PROTOCOL_VERSION);
	c->server_info = json_incref(json_object_get(result, "serverInfo"));
	json_decref(result);
	note = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", "notifications/initialized");
	rc = post(c, note, 0, &status, &none, err);
	json_decref(note);
	json_decref(none);
	if (rc < 0) {
		ax_mcp_http_close(c);
		return -1;
	}
	return 0;
}

int ax_mcp_http_request(ax_mcp_http *c, const char *method, json_t *params, json_t **result, ax_error *err)
{
	return exchange(c, method, params, result, err);
}

int ax_mcp_http_tools(ax_mcp_http *c, json_t **tools, ax_error *err)
{
	json_t *all = json_array(), *cursor = NULL;
	int page;

	for (page = 0; page < MAX_PAGES; page++) {
		json_t *result = NULL;

		if (exchange(c, "tools/list", cursor ? json_pack("{s:o}", "cursor", cursor) : json_object(), &result, err) < 0) {
			json_decref(all);
			return -1;
		}
		cursor = NULL;
		json_array_extend(all, json_object_get(result, "tools"));
		if (json_is_string(json_object_get(result, "nextCursor")))
			cursor = json_incref(json_object_get(result, "nextCursor"));
		json_decref(result);
		if (!cursor)
			break;
	}
	json_decref(cursor);
	*tools = all;
	return 0;
}

void ax_mcp_http_close(ax_mcp_http *c)
{
	if (c->session && c->http) {
		char line[256];
		const char *headers[] = { line, NULL };
		ax_http_response r;
		ax_error ignored;

		snprintf(line, sizeof line, "Mcp-Session-Id: %s", c->session);
		if (ax_http_request_headers(c->http, "DELETE", c->path, headers, NULL, &r, &ignored) == 0)
			ax_http_response_free(&r);
	}
	free(c->session);
	free(c->version);
	json_decref(c->server_info);
	memset(c, 0, sizeof *c);
}
