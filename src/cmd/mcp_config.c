#include "cmd/mcp_config.h"

#include <stdlib.h>
#include <string.h>

#include "lib/mcp_name.h"

static int bad(ax_error *err, const char *name, const char *what)
{
	return ax_fail(err, AX_CODE_CONFIG, "Invalid config: mcp.servers.%s: %s", name, what);
}

static int check_server(const char *name, const json_t *conf, ax_error *err)
{
	const json_t *cmd = json_object_get(conf, "command"), *env = json_object_get(conf, "env"), *v;
	const char *k;
	size_t i;

	if (!ax_mcp_name_ok(name))
		return bad(err, name, "a server name is 1 to 64 of A-Z a-z 0-9 _ . -");
	if (strcmp(name, "sandbox") == 0 || strcmp(name, "browser") == 0)
		return bad(err, name, "the name of a built-in server");
	if (!json_is_object(conf))
		return bad(err, name, "must be a table");
	if (!json_is_array(cmd) || !json_array_size(cmd))
		return bad(err, name, "command must be a non-empty array of strings");
	json_array_foreach(cmd, i, v)
		if (!json_is_string(v) || !*json_string_value(v))
			return bad(err, name, "command must be a non-empty array of strings");
	if (env && !json_is_object(env))
		return bad(err, name, "env must be a table of strings");
	json_object_foreach((json_t *)env, k, v)
		if (!json_is_string(v))
			return bad(err, name, "env must be a table of strings");
	if (json_object_get(conf, "cwd") && !json_is_string(json_object_get(conf, "cwd")))
		return bad(err, name, "cwd must be a string");
	json_object_foreach((json_t *)conf, k, v)
		if (strcmp(k, "command") != 0 && strcmp(k, "env") != 0 && strcmp(k, "cwd") != 0)
			return bad(err, name, "unknown key (use command, env and cwd)");
	return 0;
}

int ax_mcp_config_servers(const ax_config *cfg, json_t **servers, ax_error *err)
{
	const json_t *mcp = json_object_get(cfg->file, "mcp"), *all, *conf;
	const char *name;

	*servers = NULL;
	if (!mcp)
		return 0;
	all = json_object_get(mcp, "servers");
	if (!json_is_object(mcp) || (all && !json_is_object(all)))
		return ax_fail(err, AX_CODE_CONFIG, "Invalid config: mcp.servers must be tables [mcp.servers.<name>]");
	json_object_foreach((json_t *)all, name, conf)
		if (check_server(name, conf, err) < 0)
			return -1;
	if (all && json_object_size(all))
		*servers = json_deep_copy(all);
	return 0;
}

int ax_mcp_add_extension(const ax_config *cfg, json_t *req, ax_error *err)
{
	json_t *servers, *ext;
	char *text;

	if (ax_mcp_config_servers(cfg, &servers, err) < 0)
		return -1;
	if (!servers)
		return 0;
	text = json_dumps(servers, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(servers);
	if (!text)
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	ext = json_object_get(req, "extensions");
	if (!json_is_object(ext)) {
		ext = json_object();
		json_object_set_new(req, "extensions", ext);
	}
	json_object_set_new(ext, AX_MCP_EXTENSION, json_string(text));
	free(text);
	return 0;
}
