/* The MCP hub (mcp.h): the server table, tool lists (cached for /mcp name
 * resolution) and calls, dispatched to built-in or stdio servers. */
#include "agent/ext/mcp/mcp.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/log.h"
#include "agent/ext/mcp/mcp_builtin.h"
#include "agent/ext/mcp/mcp_jsonrpc.h"
#include "lib/mcp_name.h"
#include "agent/ext/mcp/mcp_session.h"
#include "agent/ext/mcp/mcp_stdio.h"
#include "agent/core/route.h"

#define LIST_TIMEOUT_MS 60000
#define CALL_TIMEOUT_S 300
#define MAX_PAGES 100
#define MAX_SERVERS 32

struct mcp_server {
	char *name;
	const struct mcp_builtin *builtin;   /* or */
	struct mcp_stdio *stdio;
	json_t *tools;                       /* cached tool list, NULL until listed */
};

struct ag_mcp {
	pthread_mutex_t lock;                /* guards the tool caches */
	struct mcp_builtin_env env;
	struct mcp_server servers[MAX_SERVERS];
	size_t n;
	char *log_dir;
	bool bridge;
	struct mcp_sessions *sessions;
};

static struct mcp_server *find(struct ag_mcp *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (strcmp(m->servers[i].name, name) == 0)
			return &m->servers[i];
	return NULL;
}

/* Why CONF cannot be a server, or NULL. */
static const char *check_conf(const json_t *conf)
{
	const json_t *cmd = json_object_get(conf, "command"), *env = json_object_get(conf, "env"), *v;
	const char *k;
	size_t i;

	if (!json_is_object(conf))
		return "not a table";
	if (!json_is_array(cmd) || !json_array_size(cmd))
		return "command must be a non-empty array of strings";
	json_array_foreach(cmd, i, v)
		if (!json_is_string(v) || !*json_string_value(v))
			return "command must be a non-empty array of strings";
	if (env && !json_is_object(env))
		return "env must be a table of strings";
	json_object_foreach((json_t *)env, k, v)
		if (!json_is_string(v))
			return "env must be a table of strings";
	if (json_object_get(conf, "cwd") && !json_is_string(json_object_get(conf, "cwd")))
		return "cwd must be a string";
	return NULL;
}

static void add_configured(struct ag_mcp *m, const char *servers_json)
{
	json_error_t je;
	json_t *all = json_loads(servers_json, 0, &je), *conf;
	const char *name;

	if (!json_is_object(all)) {
		ag_log("ALLOX_AGENT_MCP_SERVERS ignored: not a JSON object (%s)", je.text);
		json_decref(all);
		return;
	}
	json_object_foreach(all, name, conf) {
		const char *why = check_conf(conf);
		struct mcp_server *s = &m->servers[m->n];
		char *log = NULL;

		if (!why && !ax_mcp_name_ok(name))
			why = "names are 1 to 64 of A-Z a-z 0-9 _ . -";
		if (!why && find(m, name))
			why = "the name is taken";
		if (!why && m->n == MAX_SERVERS)
			why = "too many servers";
		if (why) {
			ag_log("MCP server %s ignored: %s", name, why);
			continue;
		}
		if (asprintf(&log, "%s/%s.log", m->log_dir, name) < 0)
			continue;
		s->name = strdup(name);
		s->stdio = mcp_stdio_new(name, json_object_get(conf, "command"), json_object_get(conf, "env"),
					 json_string_value(json_object_get(conf, "cwd")), log, m->env.ctx->reaper);
		free(log);
		if (!s->name || !s->stdio) {
			free(s->name);
			mcp_stdio_free(s->stdio);
			memset(s, 0, sizeof *s);
			continue;
		}
		m->n++;
	}
	json_decref(all);
}

struct ag_mcp *ag_mcp_new(const struct ag_ctx *ctx, struct ag_browser *browser, const char *servers_json)
{
	struct ag_mcp *m = calloc(1, sizeof *m);
	const char *home = getenv("HOME");

	if (!m)
		return NULL;
	pthread_mutex_init(&m->lock, NULL);
	m->env.ctx = ctx;
	m->env.browser = browser;
	m->bridge = true;
	m->sessions = mcp_sessions_new();
	if (asprintf(&m->log_dir, "%s/.cache/allox-mcp", home && *home ? home : "/tmp") < 0)
		m->log_dir = NULL;
	m->servers[0].name = strdup("sandbox");
	m->servers[0].builtin = &mcp_builtin_sandbox;
	m->servers[1].name = strdup("browser");
	m->servers[1].builtin = &mcp_builtin_browser;
	m->n = 2;
	if (!m->sessions || !m->log_dir || !m->servers[0].name || !m->servers[1].name) {
		ag_mcp_free(m);
		return NULL;
	}
	if (servers_json && *servers_json)
		add_configured(m, servers_json);
	return m;
}

void ag_mcp_free(struct ag_mcp *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < MAX_SERVERS; i++) {
		free(m->servers[i].name);
		mcp_stdio_free(m->servers[i].stdio);
		json_decref(m->servers[i].tools);
	}
	mcp_sessions_free(m->sessions);
	free(m->log_dir);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

void ag_mcp_set_bridge(struct ag_mcp *m, bool on)
{
	m->bridge = on;
}

void ag_mcp_set_test_capabilities(struct ag_mcp *m, const char *caps_json)
{
	json_t *caps = json_loads(caps_json, 0, NULL);
	size_t i;

	if (!json_is_object(caps)) {
		ag_log("ignored test client capabilities: not a JSON object");
	} else {
		for (i = 0; i < m->n; i++)
			if (m->servers[i].stdio)
				mcp_stdio_set_capabilities(m->servers[i].stdio, caps);
	}
	json_decref(caps);
}

bool ag_mcp_bridge(const struct ag_mcp *m)
{
	return m->bridge;
}

const char *ag_mcp_log_dir(const struct ag_mcp *m)
{
	return m->log_dir;
}

struct mcp_sessions *ag_mcp_sessions(struct ag_mcp *m)
{
	return m->sessions;
}

json_t *ag_mcp_server_names(struct ag_mcp *m)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < m->n; i++)
		json_array_append_new(a, json_string(m->servers[i].name));
	return a;
}

json_t *ag_mcp_server_details(struct ag_mcp *m)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < m->n; i++) {
		if (m->servers[i].stdio)
			json_array_append_new(a, mcp_stdio_status(m->servers[i].stdio));
		else
			json_array_append_new(a, json_pack("{s:s, s:s, s:b}", "name", m->servers[i].name, "type", "builtin",
							   "running", 1));
	}
	return a;
}

static int unknown_server(struct ag_mcp *m, const char *name, struct ag_error *err)
{
	json_t *names = ag_mcp_server_names(m);
	char list[256] = "";
	const json_t *v;
	size_t i, used = 0;

	json_array_foreach(names, i, v)
		if (used < sizeof list)
			used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", json_string_value(v));
	json_decref(names);
	return ag_fail_code(err, 404, MCP_INVALID_PARAMS, "MCP server '%s' not found in configuration (servers: %s)", name,
			    list);
}

/* Every page of S's tools, fresh. */
static int fetch_tools(struct mcp_server *s, json_t **tools, struct ag_error *err)
{
	json_t *all, *cursor = NULL;
	int page;

	if (s->builtin) {
		*tools = s->builtin->tools();
		return *tools ? 0 : ag_fail_code(err, 500, MCP_INTERNAL_ERROR, "out of memory");
	}
	all = json_array();
	for (page = 0; page < MAX_PAGES; page++) {
		json_t *params = cursor ? json_pack("{s:O}", "cursor", cursor) : json_object(), *result = NULL;

		json_decref(cursor);
		cursor = NULL;
		if (mcp_stdio_request(s->stdio, "tools/list", params, LIST_TIMEOUT_MS, &result, err) < 0) {
			json_decref(all);
			return -1;
		}
		if (json_is_array(json_object_get(result, "tools")))
			json_array_extend(all, json_object_get(result, "tools"));
		/* null or absent: the last page */
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

/* S's tools from the cache, listing them if needed or if FRESH. A new reference. */
static int cached_tools(struct ag_mcp *m, struct mcp_server *s, bool fresh, json_t **tools, struct ag_error *err)
{
	json_t *t = NULL;

	pthread_mutex_lock(&m->lock);
	if (!fresh && s->tools)
		t = json_incref(s->tools);
	pthread_mutex_unlock(&m->lock);
	if (t) {
		*tools = t;
		return 0;
	}
	if (fetch_tools(s, &t, err) < 0)
		return -1;
	pthread_mutex_lock(&m->lock);
	json_decref(s->tools);
	s->tools = json_incref(t);
	pthread_mutex_unlock(&m->lock);
	*tools = t;
	return 0;
}

int ag_mcp_list_tools(struct ag_mcp *m, const char *server, json_t **result, struct ag_error *err)
{
	struct mcp_server *s = find(m, server);
	json_t *tools;

	*result = NULL;
	if (!s)
		return unknown_server(m, server, err);
	if (cached_tools(m, s, true, &tools, err) < 0)
		return -1;
	*result = json_pack("{s:o}", "tools", tools);
	return 0;
}

static bool has_tool(const json_t *tools, const char *name)
{
	const json_t *t;
	size_t i;

	json_array_foreach(tools, i, t)
		if (json_is_string(json_object_get(t, "name")) && strcmp(json_string_value(json_object_get(t, "name")), name) == 0)
			return true;
	return false;
}

static int check_tool(struct ag_mcp *m, struct mcp_server *s, const char *tool, struct ag_error *err)
{
	json_t *tools = NULL;
	bool found;

	if (cached_tools(m, s, false, &tools, err) < 0)
		return -1;
	found = has_tool(tools, tool);
	json_decref(tools);
	/* The list may have changed since it was cached. */
	if (!found && cached_tools(m, s, true, &tools, err) == 0) {
		found = has_tool(tools, tool);
		json_decref(tools);
	}
	if (!found)
		return ag_fail_code(err, 404, MCP_INVALID_PARAMS, "Tool '%s' not found on MCP server '%s'", tool, s->name);
	return 0;
}

int ag_mcp_call_tool(struct ag_mcp *m, const char *server, const char *tool, const json_t *args, double timeout_s,
		     json_t **result, struct ag_error *err)
{
	struct mcp_server *s = find(m, server);
	json_t *params;

	*result = NULL;
	if (!s)
		return unknown_server(m, server, err);
	if (args && !json_is_object(args))
		return ag_fail_code(err, 400, MCP_INVALID_PARAMS, "the arguments must be a JSON object");
	if (s->builtin) {
		json_t *none = args ? NULL : json_object();
		int rc = s->builtin->call(&m->env, tool, args ? args : none, result, err);

		json_decref(none);
		return rc;
	}
	if (check_tool(m, s, tool, err) < 0)
		return -1;
	/* Always an arguments object, {} when there are none. */
	params = args ? json_pack("{s:s, s:O}", "name", tool, "arguments", args)
		      : json_pack("{s:s, s:{}}", "name", tool, "arguments");
	if (timeout_s <= 0)
		timeout_s = CALL_TIMEOUT_S;
	if (mcp_stdio_request(s->stdio, "tools/call", params, (int)(timeout_s * 1000), result, err) < 0)
		return -1;
	if (!json_is_array(json_object_get(*result, "content"))) {
		json_decref(*result);
		*result = NULL;
		return ag_fail_code(err, 502, MCP_INTERNAL_ERROR, "MCP server '%s': the result of %s has no content", server,
				    tool);
	}
	return 0;
}

/* The name /mcp shows for TOOL of SERVER; malloc'd. */
static char *exposed_name(const char *server, const char *tool)
{
	size_t n = strlen(server);
	char *name;

	if (strncmp(tool, server, n) == 0 && tool[n] == '_')
		return strdup(tool);
	return asprintf(&name, "%s_%s", server, tool) < 0 ? NULL : name;
}

json_t *ag_mcp_all_tools(struct ag_mcp *m)
{
	json_t *all = json_array();
	size_t i, j;

	for (i = 0; i < m->n; i++) {
		struct ag_error err;
		json_t *tools = NULL, *t;

		if (cached_tools(m, &m->servers[i], false, &tools, &err) < 0) {
			ag_log("/mcp: tools of %s skipped: %s", m->servers[i].name, err.message);
			continue;
		}
		json_array_foreach(tools, j, t) {
			const char *name = json_string_value(json_object_get(t, "name"));
			char *exposed = name ? exposed_name(m->servers[i].name, name) : NULL;
			json_t *copy, *meta;

			if (!exposed)
				continue;
			copy = json_deep_copy(t);
			json_object_set_new(copy, "name", json_string(exposed));
			meta = json_object_get(copy, "_meta");
			if (!json_is_object(meta)) {
				meta = json_object();
				json_object_set_new(copy, "_meta", meta);
			}
			json_object_set_new(meta, "allox/server", json_string(m->servers[i].name));
			json_object_set_new(meta, "allox/tool", json_string(name));
			json_array_append_new(all, copy);
			free(exposed);
		}
		json_decref(tools);
	}
	return all;
}

int ag_mcp_resolve(struct ag_mcp *m, const char *exposed, char **server, char **tool, struct ag_error *err)
{
	size_t i, j;

	*server = *tool = NULL;
	for (i = 0; i < m->n; i++) {
		const char *name = m->servers[i].name;
		size_t n = strlen(name);
		json_t *tools = NULL, *t;

		if (strncmp(exposed, name, n) != 0 || exposed[n] != '_')
			continue;
		if (cached_tools(m, &m->servers[i], false, &tools, err) < 0)
			continue;
		json_array_foreach(tools, j, t) {
			const char *tn = json_string_value(json_object_get(t, "name"));
			char *e = tn ? exposed_name(name, tn) : NULL;
			bool match = e && strcmp(e, exposed) == 0;

			free(e);
			if (match) {
				*server = strdup(name);
				*tool = strdup(tn);
				json_decref(tools);
				return *server && *tool ? 0 : ag_fail_code(err, 500, MCP_INTERNAL_ERROR, "out of memory");
			}
		}
		json_decref(tools);
	}
	return ag_fail_code(err, 404, MCP_INVALID_PARAMS, "Unknown tool: %s", exposed);
}
