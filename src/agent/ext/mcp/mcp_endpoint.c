/* /mcp: the hub as one Streamable HTTP MCP server for any MCP client. The
 * smallest compliant shape: POST-only with application/json replies (GET
 * gets 405 from the router, which the spec allows), sessions by
 * Mcp-Session-Id from initialize on, DELETE ends one. Tools of every server
 * under "<server>_<tool>" names (mcp_hub.c). */
#include "agent/ext/mcp/routes_mcp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/ext/mcp/mcp.h"
#include "agent/ext/mcp/mcp_jsonrpc.h"
#include "agent/ext/mcp/mcp_session.h"

#define SESSION_HEADER "Mcp-Session-Id"
#define VERSION_HEADER "MCP-Protocol-Version"

static const char *header(struct ag_req *req, const char *name)
{
	return MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, name);
}

/* A JSON-RPC message as the HTTP reply; SESSION (may be NULL) as its header. */
static enum MHD_Result reply_msg(struct ag_req *req, unsigned status, json_t *msg, const char *session)
{
	struct MHD_Response *resp = ag_json_response(msg);

	if (resp && session)
		MHD_add_response_header(resp, SESSION_HEADER, session);
	return ag_reply_queue(req, status, resp);
}

static enum MHD_Result reply_error(struct ag_req *req, unsigned status, const json_t *id, int code, const char *message)
{
	return reply_msg(req, status, mcp_error(id, code, message), NULL);
}

static enum MHD_Result initialize(struct ag_req *req, const json_t *msg)
{
	const json_t *params = json_object_get(msg, "params");
	const char *version = mcp_pick_version(json_string_value(json_object_get(params, "protocolVersion")));
	char id[MCP_SESSION_ID_LEN + 1], known[MCP_VERSION_LEN];
	json_t *result;

	if (header(req, SESSION_HEADER) && mcp_session_touch(ag_mcp_sessions(req->ctx->mcp), header(req, SESSION_HEADER), known) == 0)
		return reply_error(req, MHD_HTTP_BAD_REQUEST, json_object_get(msg, "id"), MCP_INVALID_REQUEST,
				   "Invalid Request: Server already initialized");
	if (mcp_session_create(ag_mcp_sessions(req->ctx->mcp), version, id) < 0)
		return reply_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, json_object_get(msg, "id"), MCP_INTERNAL_ERROR,
				   "no randomness for a session id");
	result = json_pack("{s:s, s:{s:{s:b}}, s:{s:s, s:s, s:s}, s:s}", "protocolVersion", version, "capabilities",
			   "tools", "listChanged", 0, "serverInfo", "name", "allox-agent", "title", "allox MCP hub",
			   "version", req->ctx->version, "instructions",
			   "Tools of every MCP server in this sandbox, named <server>_<tool> (sandbox_*, browser_*, and "
			   "the configured servers').");
	return reply_msg(req, MHD_HTTP_OK, mcp_result(json_object_get(msg, "id"), result), id);
}

static json_t *call_tool(struct ag_req *req, const json_t *msg)
{
	const json_t *params = json_object_get(msg, "params"), *id = json_object_get(msg, "id");
	const char *name = json_string_value(json_object_get(params, "name"));
	const json_t *args = json_object_get(params, "arguments");
	struct ag_error err = { 0 };
	char *server = NULL, *tool = NULL;
	json_t *result = NULL, *reply;

	if (!name)
		return mcp_error(id, MCP_INVALID_PARAMS, "tools/call needs params.name");
	if (args && !json_is_object(args) && !json_is_null(args))
		return mcp_error(id, MCP_INVALID_PARAMS, "tools/call: arguments must be an object");
	if (ag_mcp_resolve(req->ctx->mcp, name, &server, &tool, &err) < 0 ||
	    ag_mcp_call_tool(req->ctx->mcp, server, tool, json_is_object(args) ? args : NULL, 0, &result, &err) < 0)
		reply = mcp_error(id, err.code ? err.code : MCP_INTERNAL_ERROR, err.message);
	else
		reply = mcp_result(id, result);
	free(server);
	free(tool);
	return reply;
}

static json_t *dispatch(struct ag_req *req, const json_t *msg)
{
	const char *method = json_string_value(json_object_get(msg, "method"));
	const json_t *id = json_object_get(msg, "id");

	if (strcmp(method, "ping") == 0)
		return mcp_result(id, NULL);
	if (strcmp(method, "tools/list") == 0)
		return mcp_result(id, json_pack("{s:o}", "tools", ag_mcp_all_tools(req->ctx->mcp)));
	if (strcmp(method, "tools/call") == 0)
		return call_tool(req, msg);
	return mcp_error(id, MCP_METHOD_NOT_FOUND, "Method not found");
}

enum MHD_Result ag_mcp_post_route(struct ag_req *req)
{
	const char *type = header(req, MHD_HTTP_HEADER_CONTENT_TYPE), *session = header(req, SESSION_HEADER);
	const char *version = header(req, VERSION_HEADER);
	char negotiated[MCP_VERSION_LEN];
	enum mcp_kind kind;
	enum MHD_Result rc;
	json_t *msg;

	if (req->body_too_large)
		return reply_error(req, MHD_HTTP_CONTENT_TOO_LARGE, NULL, MCP_INVALID_REQUEST, "Request body too large");
	if (!type || !strstr(type, "application/json"))
		return reply_error(req, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, NULL, -32000,
				   "Unsupported Media Type: Content-Type must be application/json");
	msg = json_loadb(req->body ? req->body : "", req->body_len, 0, NULL);
	if (!msg)
		return reply_error(req, MHD_HTTP_BAD_REQUEST, NULL, MCP_PARSE_ERROR, "Parse error");
	kind = mcp_classify(msg);
	if (kind == MCP_INVALID) {
		json_decref(msg);
		return reply_error(req, MHD_HTTP_BAD_REQUEST, NULL, MCP_INVALID_REQUEST,
				   "Invalid Request: one JSON-RPC 2.0 object per POST (no batches)");
	}
	if (kind == MCP_REQUEST && strcmp(json_string_value(json_object_get(msg, "method")), "initialize") == 0) {
		rc = initialize(req, msg);
		json_decref(msg);
		return rc;
	}
	if (!session)
		rc = reply_error(req, MHD_HTTP_BAD_REQUEST, NULL, -32000, "Bad Request: No valid session ID provided");
	else if (mcp_session_touch(ag_mcp_sessions(req->ctx->mcp), session, negotiated) < 0)
		rc = reply_error(req, MHD_HTTP_NOT_FOUND, NULL, -32001, "Session not found");
	else if (version && !mcp_version_known(version))
		rc = reply_error(req, MHD_HTTP_BAD_REQUEST, NULL, -32000, "Bad Request: Unsupported protocol version");
	else if (kind != MCP_REQUEST)
		rc = ag_reply_empty(req, MHD_HTTP_ACCEPTED);   /* notifications and responses */
	else
		rc = reply_msg(req, MHD_HTTP_OK, dispatch(req, msg), NULL);
	json_decref(msg);
	return rc;
}

enum MHD_Result ag_mcp_delete_route(struct ag_req *req)
{
	const char *session = header(req, SESSION_HEADER);

	if (!session)
		return reply_error(req, MHD_HTTP_BAD_REQUEST, NULL, -32000, "Bad Request: No valid session ID provided");
	if (mcp_session_delete(ag_mcp_sessions(req->ctx->mcp), session) < 0)
		return reply_error(req, MHD_HTTP_NOT_FOUND, NULL, -32001, "Session not found");
	return ag_reply_empty(req, MHD_HTTP_OK);
}
