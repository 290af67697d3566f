/* The execd API's code-interpreting routes: checks and error shapes like
 * the official execd's (components/execd, controller/codeinterpreting.go),
 * then the session registry (jupyter.c), whose sessions are the contexts. */
#include "agent/ext/jupyter/routes_code.h"

#include <string.h>

#include "agent/execd/execd_http.h"
#include "agent/ext/jupyter/code_stream.h"
#include "agent/ext/jupyter/jupyter.h"

/* ERR as an ErrorResponse. A missing context is 404 where the spec lists
 * it, else RUNTIME_ERROR's 500 with CONTEXT_NOT_FOUND as the code; no
 * kernel for a language is the 500 the official execd answers when its
 * Jupyter server has none. */
static enum MHD_Result reply_error(struct ag_req *req, const struct ag_error *err, bool not_found_is_404)
{
	if (err->status == 400)
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST, "%s", err->message);
	if (err->status == 404 && strstr(err->message, "context"))
		return ag_execd_error(req, not_found_is_404 ? MHD_HTTP_NOT_FOUND : MHD_HTTP_INTERNAL_SERVER_ERROR,
				      AG_E_CONTEXT_NOT_FOUND, "%s", err->message);
	return ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "%s", err->message);
}

static const char *query(const struct ag_req *req, const char *name)
{
	const char *v = MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, name);

	return v && *v ? v : NULL;
}

/* An optional string member of O; *BAD when present and not a string. */
static const char *opt_string(const json_t *o, const char *key, bool *bad)
{
	const json_t *v = json_object_get(o, key);

	if (v && !json_is_string(v) && !json_is_null(v))
		*bad = true;
	return json_string_value(v) && *json_string_value(v) ? json_string_value(v) : NULL;
}

enum MHD_Result ag_code_context_create_route(struct ag_req *req)
{
	struct ag_error err = { 0 };
	const char *language, *cwd;
	json_t *body, *ctx = NULL;
	enum MHD_Result rc;
	bool bad = false;

	if (!(body = ag_execd_body_json(req, &rc)))
		return rc;
	language = opt_string(body, "language", &bad);
	cwd = opt_string(body, "cwd", &bad);
	if (bad || !json_is_object(body))
		rc = ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST,
				    "error parsing request, MAYBE invalid body format. language and cwd must be strings");
	else if (ag_jupyter_context_create(req->ctx->jupyter, language ? language : "python", cwd, &ctx, &err) < 0)
		rc = reply_error(req, &err, true);
	else
		rc = ag_reply_json(req, MHD_HTTP_OK, ctx);
	json_decref(body);
	return rc;
}

/* The spec marks language required; the official execd and SDKs list
 * every context without it. */
enum MHD_Result ag_code_contexts_route(struct ag_req *req)
{
	return ag_reply_json(req, MHD_HTTP_OK, ag_jupyter_contexts(req->ctx->jupyter, query(req, "language")));
}

enum MHD_Result ag_code_contexts_delete_route(struct ag_req *req)
{
	const char *language = query(req, "language");

	if (!language)
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_MISSING_QUERY, "missing query parameter 'language'");
	ag_jupyter_delete_language(req->ctx->jupyter, language);
	return ag_reply_empty(req, MHD_HTTP_OK);
}

enum MHD_Result ag_code_context_get_route(struct ag_req *req)
{
	struct ag_error err = { 0 };
	json_t *ctx;

	if (!*req->subpath)
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_MISSING_QUERY, "missing path parameter 'contextId'");
	if (ag_jupyter_context_get(req->ctx->jupyter, req->subpath, &ctx, &err) < 0)
		return reply_error(req, &err, true);
	return ag_reply_json(req, MHD_HTTP_OK, ctx);
}

enum MHD_Result ag_code_context_delete_route(struct ag_req *req)
{
	struct ag_error err = { 0 };

	if (!*req->subpath)
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_MISSING_QUERY, "missing path parameter 'contextId'");
	if (ag_jupyter_delete(req->ctx->jupyter, req->subpath, &err) < 0) {
		snprintf(err.message, sizeof err.message, "context %.200s not found", req->subpath);
		return reply_error(req, &err, true);
	}
	return ag_reply_empty(req, MHD_HTTP_OK);
}

enum MHD_Result ag_code_run_route(struct ag_req *req)
{
	struct ag_error err = { 0 };
	const char *code, *id = NULL, *language = NULL;
	const json_t *context;
	struct jsession *s;
	enum MHD_Result rc;
	json_t *body;
	bool bad = false, created;

	if (!(body = ag_execd_body_json(req, &rc)))
		return rc;
	code = json_string_value(json_object_get(body, "code"));
	context = json_object_get(body, "context");
	if (json_is_object(context)) {
		id = opt_string(context, "id", &bad);
		language = opt_string(context, "language", &bad);
	} else if (context && !json_is_null(context)) {
		bad = true;
	}
	if (!code || bad || (!id && !language)) {
		rc = ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST,
				    "invalid request, validation error: code must be a string and context {id, language} "
				    "must name a context or a language");
	} else if (!(s = ag_jupyter_context_open(req->ctx->jupyter, id, language, &created, &err))) {
		if (err.status == 404 && id)
			snprintf(err.message, sizeof err.message, "context %.200s not found", id);
		rc = reply_error(req, &err, false);
	} else {
		rc = code_stream_reply(req, req->ctx->jupyter, s, created, code);
	}
	json_decref(body);
	return rc;
}

enum MHD_Result ag_code_interrupt_route(struct ag_req *req)
{
	struct ag_error err = { 0 };
	const char *id = query(req, "id");

	if (!id)
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_MISSING_QUERY, "missing query parameter 'id'");
	if (ag_jupyter_interrupt(req->ctx->jupyter, id, &err) < 0)
		return reply_error(req, &err, false);
	return ag_reply_empty(req, MHD_HTTP_OK);
}
