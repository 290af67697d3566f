/* AIO's REST bridge to the MCP servers: GET /v1/mcp/servers,
 * GET /v1/mcp/{server}/tools, POST /v1/mcp/{server}/tools/{tool} with the
 * tool's arguments as the whole body; results in the AIO envelope. */
#include "agent/ext/mcp/routes_mcp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/ext/mcp/mcp.h"

/* As the server answers a path it does not know, so that with the bridge
 * switched off a client sees what an image without it would show. */
static enum MHD_Result not_found(struct ag_req *req)
{
	return ag_reply_failure(req, MHD_HTTP_NOT_FOUND, "Not found: %s", req->path);
}

enum MHD_Result ag_mcp_servers_route(struct ag_req *req)
{
	struct ag_mcp *m = req->ctx->mcp;
	json_t *body;
	char hint[512];

	if (!ag_mcp_bridge(m))
		return not_found(req);
	body = ag_envelope("MCP servers retrieved", ag_mcp_server_names(m));
	snprintf(hint, sizeof hint, "Configured servers write their stderr to %s/<server>.log in the sandbox.",
		 ag_mcp_log_dir(m));
	json_object_set_new(body, "hint", json_string(hint));
	/* An allox addition beside the envelope (as GET /v1/sandbox's detail). */
	json_object_set_new(body, "detail", ag_mcp_server_details(m));
	return ag_reply_json(req, MHD_HTTP_OK, body);
}

/* SUBPATH "<server>/tools" or "<server>/tools/<tool>": the parts, malloc'd. */
static int split(const char *subpath, char **server, char **tool)
{
	const char *slash = strchr(subpath, '/'), *rest;

	*server = *tool = NULL;
	if (!slash || slash == subpath)
		return -1;
	rest = slash + 1;
	if (strncmp(rest, "tools", 5) != 0 || (rest[5] != '\0' && rest[5] != '/'))
		return -1;
	if (rest[5] == '/' && (!rest[6] || strchr(rest + 6, '/')))
		return -1;
	*server = strndup(subpath, (size_t)(slash - subpath));
	if (rest[5] == '/')
		*tool = strdup(rest + 6);
	if (!*server || (rest[5] == '/' && !*tool)) {
		free(*server);
		free(*tool);
		*server = *tool = NULL;
		return -1;
	}
	return 0;
}

enum MHD_Result ag_mcp_tools_route(struct ag_req *req)
{
	struct ag_mcp *m = req->ctx->mcp;
	struct ag_error err = { 0 };
	char *server, *tool;
	json_t *result = NULL;
	enum MHD_Result rc;

	if (!ag_mcp_bridge(m) || split(req->subpath, &server, &tool) < 0)
		return not_found(req);
	if (tool)
		rc = not_found(req);
	else if (ag_mcp_list_tools(m, server, &result, &err) < 0)
		rc = ag_reply_error(req, &err);
	else
		rc = ag_reply_json(req, MHD_HTTP_OK, ag_envelope("Tools retrieved", result));
	free(server);
	free(tool);
	return rc;
}

/* ?timeout=<seconds>, as the AIO bridge accepts it; 0 when absent. */
static double timeout_query(struct ag_req *req)
{
	const char *t = MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, "timeout");

	return t ? strtod(t, NULL) : 0;
}

enum MHD_Result ag_mcp_call_route(struct ag_req *req)
{
	struct ag_mcp *m = req->ctx->mcp;
	struct ag_error err = { 0 };
	char *server, *tool;
	json_t *args, *result = NULL;
	enum MHD_Result rc;

	if (!ag_mcp_bridge(m) || split(req->subpath, &server, &tool) < 0)
		return not_found(req);
	if (!tool) {
		free(server);
		return not_found(req);
	}
	if (req->body_too_large) {
		rc = ag_reply_failure(req, MHD_HTTP_CONTENT_TOO_LARGE, "Request body too large: %s", req->path);
		goto out;
	}
	/* The body is the arguments object; none at all means {}. */
	args = req->body_len ? json_loadb(req->body, req->body_len, 0, NULL) : json_object();
	if (!json_is_object(args)) {
		json_decref(args);
		rc = ag_reply_failure(req, 422,
				      "The body must be a JSON object: the tool's arguments");
		goto out;
	}
	if (ag_mcp_call_tool(m, server, tool, args, timeout_query(req), &result, &err) < 0)
		rc = ag_reply_error(req, &err);
	else
		rc = ag_reply_json(req, MHD_HTTP_OK, ag_envelope("Tool executed", result));
	json_decref(args);
out:
	free(server);
	free(tool);
	return rc;
}
