#include "api/mcp_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HUB_PATH "/mcp"

void ax_mcp_init(ax_mcp *m, ax_http *aio)
{
	memset(m, 0, sizeof *m);
	m->aio = aio;
}

void ax_mcp_free(ax_mcp *m)
{
	if (m->hub_open)
		ax_mcp_http_close(&m->hub);
	json_decref(m->hub_tools);
	json_decref(m->details);
	free(m->hint);
	memset(m, 0, sizeof *m);
}

/* "a, b, c" of the strings in NAMES (or of NAMES' objects' "name"). */
static void join(const json_t *names, char *buf, size_t size)
{
	const json_t *v;
	size_t i, used = 0;

	buf[0] = '\0';
	json_array_foreach(names, i, v) {
		const char *s = json_is_string(v) ? json_string_value(v) : json_string_value(json_object_get(v, "name"));

		if (s && used < size)
			used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "", s);
	}
	if (!used)
		snprintf(buf, size, "(none)");
}

static bool contains(const json_t *names, const char *name)
{
	const json_t *v;
	size_t i;

	json_array_foreach(names, i, v) {
		const char *s = json_is_string(v) ? json_string_value(v) : json_string_value(json_object_get(v, "name"));

		if (s && strcmp(s, name) == 0)
			return true;
	}
	return false;
}

static int unknown_server(const char *server, const json_t *names, ax_error *err)
{
	char list[1024];

	join(names, list, sizeof list);
	return ax_fail(err, AX_CODE_MCP_UNKNOWN_SERVER, "MCP server '%s' not found. Servers: %s", server, list);
}

static int unknown_tool(const char *server, const char *tool, const json_t *tools, ax_error *err)
{
	char list[2048];

	join(tools, list, sizeof list);
	return ax_fail(err, AX_CODE_MCP_UNKNOWN_TOOL, "MCP tool '%s' not found on server '%s'. Tools: %s", tool,
		       server, list);
}

int ax_mcp_decode_bridge(long status, const char *body, size_t len, json_t **data, json_t **doc, ax_error *err)
{
	json_t *d, *parsed = json_loadb(body, len, 0, NULL);
	const char *msg = json_string_value(json_object_get(parsed, "message"));
	int rc = -1;

	*data = NULL;
	if (doc)
		*doc = NULL;
	if (!msg)
		msg = json_string_value(json_object_get(parsed, "detail"));
	if (status == 404) {
		rc = 1;
	} else if (status < 200 || status > 299) {
		if (msg)
			ax_fail(err, AX_CODE_AIO, "AIO API error (%ld): %.600s", status, msg);
		else
			ax_fail(err, AX_CODE_AIO, "AIO API error (%ld): %.*s", status,
				(int)(len > 600 ? 600 : len), body);
	} else if (!json_is_object(parsed) || json_is_false(json_object_get(parsed, "success")) ||
		   !(d = json_object_get(parsed, "data")) || json_is_null(d)) {
		ax_fail(err, AX_CODE_AIO, "%s", msg && *msg ? msg : "MCP bridge returned no data");
	} else {
		*data = json_incref(d);
		if (doc)
			*doc = json_incref(parsed);
		rc = 0;
	}
	json_decref(parsed);
	return rc;
}

/* One bridge request: 0 with *DATA on success, 1 on 404 (the caller decides
 * what it means), -1 with ERR otherwise. *DOC (may be NULL) gets the whole body. */
static int bridge(ax_mcp *m, const char *method, const char *path, const json_t *body, json_t **data, json_t **doc,
		  ax_error *err)
{
	ax_http_response r;
	int rc;

	*data = NULL;
	if (doc)
		*doc = NULL;
	if (ax_http_request(m->aio, method, path, body, &r, err) < 0)
		return -1;
	rc = ax_mcp_decode_bridge(r.status, r.body, r.len, data, doc, err);
	ax_http_response_free(&r);
	return rc;
}

static int hub_open(ax_mcp *m, ax_error *err)
{
	if (m->hub_open)
		return 0;
	if (ax_mcp_http_open(&m->hub, m->aio, HUB_PATH, err) < 0)
		return -1;
	m->hub_open = true;
	if (ax_mcp_http_tools(&m->hub, &m->hub_tools, err) < 0)
		return -1;
	return 0;
}

char *ax_mcp_tool_server(const json_t *tool)
{
	const char *s = json_string_value(json_object_get(json_object_get(tool, "_meta"), "allox/server"));
	const char *name = json_string_value(json_object_get(tool, "name")), *us;

	if (s)
		return strdup(s);
	if (!name || !(us = strchr(name, '_')) || us == name)
		return strdup("");
	return strndup(name, (size_t)(us - name));
}

char *ax_mcp_tool_name(const json_t *tool, const char *server)
{
	const char *own = json_string_value(json_object_get(json_object_get(tool, "_meta"), "allox/tool"));
	const char *name = json_string_value(json_object_get(tool, "name"));
	size_t n = strlen(server);

	if (own)
		return strdup(own);
	if (!name)
		return strdup("");
	/* AIO's hub prefixes "<server>_"; its browser tools keep their own
	 * browser_ prefix, so the exposed name is also the tool's own. */
	if (n && strncmp(name, server, n) == 0 && name[n] == '_' && strcmp(server, "browser") != 0)
		return strdup(name + n + 1);
	return strdup(name);
}

static json_t *hub_servers(const ax_mcp *m)
{
	json_t *names = json_array(), *t;
	size_t i;

	json_array_foreach(m->hub_tools, i, t) {
		char *s = ax_mcp_tool_server(t);

		if (s && *s && !contains(names, s))
			json_array_append_new(names, json_string(s));
		free(s);
	}
	return names;
}

/* SERVER's tools from the hub, as {own name → exposed tool}. */
static json_t *hub_tools_of(const ax_mcp *m, const char *server)
{
	json_t *tools = json_array(), *t;
	size_t i;

	json_array_foreach(m->hub_tools, i, t) {
		char *s = ax_mcp_tool_server(t), *own;
		json_t *copy;

		if (!s || strcmp(s, server) != 0) {
			free(s);
			continue;
		}
		own = ax_mcp_tool_name(t, server);
		copy = json_deep_copy(t);
		json_object_set_new(copy, "name", json_string(own ? own : ""));
		json_array_append_new(tools, copy);
		free(own);
		free(s);
	}
	return tools;
}

/* The bridge's server list, or 1 when the bridge is missing (then switched
 * to the hub). */
static int bridge_servers(ax_mcp *m, json_t **names, ax_error *err)
{
	json_t *doc = NULL;
	int rc = bridge(m, "GET", "/v1/mcp/servers", NULL, names, &doc, err);

	if (rc == 1) {
		m->fallback = true;
		return 1;
	}
	if (rc == 0) {
		if (!json_is_array(*names)) {
			json_decref(*names);
			json_decref(doc);
			*names = NULL;
			return ax_fail(err, AX_CODE_AIO, "MCP bridge: the server list is not an array");
		}
		json_decref(m->details);
		m->details = json_incref(json_object_get(doc, "detail"));
		free(m->hint);
		m->hint = json_string_value(json_object_get(doc, "hint")) ? strdup(json_string_value(json_object_get(doc, "hint")))
									    : NULL;
	}
	json_decref(doc);
	return rc;
}

int ax_mcp_servers(ax_mcp *m, json_t **names, ax_error *err)
{
	int rc;

	*names = NULL;
	if (!m->fallback) {
		rc = bridge_servers(m, names, err);
		if (rc <= 0)
			return rc;
	}
	if (hub_open(m, err) < 0)
		return -1;
	*names = hub_servers(m);
	return 0;
}

/* After a 404 from the bridge about SERVER: the bridge is missing (1,
 * switched to the hub), or SERVER is unknown (-1 with the list), or 0. */
static int explain_404(ax_mcp *m, const char *server, ax_error *err)
{
	json_t *names = NULL;
	int rc = bridge_servers(m, &names, err);

	if (rc != 0)
		return rc;
	if (!contains(names, server))
		rc = unknown_server(server, names, err);
	json_decref(names);
	return rc;
}

static char *tool_path(const char *server, const char *tool, long timeout_s)
{
	char *es = ax_http_escape(server), *et = tool ? ax_http_escape(tool) : NULL, *path = NULL;
	char query[32] = "";

	if (timeout_s > 0)
		snprintf(query, sizeof query, "?timeout=%ld", timeout_s);
	if (es && (!tool || et) &&
	    asprintf(&path, "/v1/mcp/%s/tools%s%s%s", es, tool ? "/" : "", tool ? et : "", query) < 0)
		path = NULL;
	free(es);
	free(et);
	return path;
}

int ax_mcp_tools(ax_mcp *m, const char *server, json_t **tools, ax_error *err)
{
	json_t *data = NULL, *names;
	int rc;

	*tools = NULL;
	if (!m->fallback) {
		char *path = tool_path(server, NULL, 0);

		if (!path)
			return ax_fail(err, AX_CODE_NOMEM, "out of memory");
		rc = bridge(m, "GET", path, NULL, &data, NULL, err);
		free(path);
		if (rc == 0) {
			*tools = json_incref(json_object_get(data, "tools"));
			json_decref(data);
			return json_is_array(*tools) ? 0 : ax_fail(err, AX_CODE_AIO, "MCP bridge: no tool list");
		}
		if (rc < 0)
			return -1;
		rc = explain_404(m, server, err);
		if (rc < 0)
			return -1;
		if (rc == 0)
			return ax_fail(err, AX_CODE_AIO, "AIO API error (404): no tools for MCP server '%s'", server);
	}
	if (hub_open(m, err) < 0)
		return -1;
	names = hub_servers(m);
	if (!contains(names, server)) {
		rc = unknown_server(server, names, err);
		json_decref(names);
		return rc;
	}
	json_decref(names);
	*tools = hub_tools_of(m, server);
	return 0;
}

static int hub_call(ax_mcp *m, const char *server, const char *tool, const json_t *args, json_t **result,
		    ax_error *err)
{
	json_t *tools = NULL, *t;
	const char *exposed = NULL;
	size_t i;
	int rc;

	if (ax_mcp_tools(m, server, &tools, err) < 0)
		return -1;
	/* Back from own names to exposed ones: same order in both lists. */
	{
		json_t *all = m->hub_tools;
		size_t k = 0;

		json_array_foreach(all, i, t) {
			char *s = ax_mcp_tool_server(t);
			bool mine = s && strcmp(s, server) == 0;

			free(s);
			if (!mine)
				continue;
			if (strcmp(json_string_value(json_object_get(json_array_get(tools, k), "name")) ?: "", tool) == 0) {
				exposed = json_string_value(json_object_get(t, "name"));
				break;
			}
			k++;
		}
	}
	if (!exposed) {
		rc = unknown_tool(server, tool, tools, err);
		json_decref(tools);
		return rc;
	}
	rc = ax_mcp_http_request(&m->hub, "tools/call", json_pack("{s:s, s:O}", "name", exposed, "arguments", args),
				 result, err);
	json_decref(tools);
	return rc;
}

int ax_mcp_call(ax_mcp *m, const char *server, const char *tool, const json_t *args, json_t **result, ax_error *err)
{
	json_t *tools = NULL;
	int rc;

	*result = NULL;
	if (!m->fallback) {
		char *path = tool_path(server, tool, m->call_timeout_s);

		if (!path)
			return ax_fail(err, AX_CODE_NOMEM, "out of memory");
		rc = bridge(m, "POST", path, args, result, NULL, err);
		free(path);
		if (rc <= 0)
			return rc;
		rc = explain_404(m, server, err);
		if (rc < 0)
			return -1;
		if (rc == 0) {
			/* The server exists: is it the tool? */
			if (ax_mcp_tools(m, server, &tools, err) < 0)
				return -1;
			if (!contains(tools, tool))
				rc = unknown_tool(server, tool, tools, err);
			else
				rc = ax_fail(err, AX_CODE_AIO, "AIO API error (404): MCP tool '%s/%s'", server, tool);
			json_decref(tools);
			return rc;
		}
	}
	return hub_call(m, server, tool, args, result, err);
}
