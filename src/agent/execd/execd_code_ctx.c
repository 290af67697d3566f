/* The /code context routes (execd_code.h): bash contexts served from the
 * agent's bash sessions, everything else handed to the extension module,
 * with the same answers and ErrorResponses as its Jupyter contexts
 * (code_routes.c). */
#include "agent/execd/execd_code.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "agent/core/ext_loader.h"
#include "agent/execd/execd_http.h"
#include "agent/execd/execd_session.h"

/* ag_query, with an empty value read as absent ("?language=" lists all). */
static const char *query(const struct ag_req *req, const char *name)
{
	const char *v = ag_query(req, name, NULL);

	return v && *v ? v : NULL;
}

/* Is ID (the path's, or the query's) one of the agent's bash contexts? */
static bool bash_context(const struct ag_req *req, const char *id)
{
	return id && *id && ag_bash_is_context(req->ctx->sessions, id);
}

enum MHD_Result ag_execd_code_context_create(struct ag_req *req)
{
	const json_t *language, *cwd;
	char id[AG_SESSION_ID_LEN + 1], *abs = NULL;
	enum MHD_Result rc;
	json_t *body;
	ax_error err;

	if (!(body = ag_execd_body_json(req, &rc)))
		return rc;
	language = json_object_get(body, "language");
	cwd = json_object_get(body, "cwd");
	/* Anything malformed goes to the module, which says what is wrong. */
	if (!ag_execd_code_bash(json_string_value(language)) || (cwd && !json_is_string(cwd) && !json_is_null(cwd))) {
		json_decref(body);
		return ag_ext_route(req);
	}
	if (json_string_value(cwd) && *json_string_value(cwd) && !(abs = ag_abs_path(json_string_value(cwd))))
		rc = ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "out of memory");
	else if (ag_bash_create(req->ctx, abs, true, id, &err) < 0)
		rc = ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "error creating context: %s",
				    err.message);
	else
		rc = ag_reply_json(req, MHD_HTTP_OK, json_pack("{s:s, s:s}", "id", id, "language", "bash"));
	free(abs);
	json_decref(body);
	return rc;
}

/* The module's contexts, then the agent's bash ones. */
enum MHD_Result ag_execd_code_contexts(struct ag_req *req)
{
	const char *language = query(req, "language");
	json_t *all = ag_ext_code_contexts(req->ctx, language), *bash = NULL;

	if (all && (!language || strcasecmp(language, "bash") == 0) &&
	    (!(bash = ag_bash_contexts(req->ctx->sessions)) || json_array_extend(all, bash) < 0)) {
		json_decref(all);
		all = NULL;
	}
	json_decref(bash);
	if (!all)
		return ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "out of memory");
	return ag_reply_json(req, MHD_HTTP_OK, all);
}

/* A language's contexts, ours and then, when it holds any, the module's. */
enum MHD_Result ag_execd_code_contexts_delete(struct ag_req *req)
{
	const char *language = query(req, "language");

	if (language && strcasecmp(language, "bash") == 0) {
		ag_bash_delete_contexts(req->ctx);
		if (!ag_ext_loaded(req->ctx))
			return ag_reply_empty(req, MHD_HTTP_OK);
	}
	return ag_ext_route(req);
}

enum MHD_Result ag_execd_code_context_get(struct ag_req *req)
{
	if (!bash_context(req, req->subpath))
		return ag_ext_route(req);
	return ag_reply_json(req, MHD_HTTP_OK, json_pack("{s:s, s:s}", "id", req->subpath, "language", "bash"));
}

enum MHD_Result ag_execd_code_context_delete(struct ag_req *req)
{
	if (!bash_context(req, req->subpath))
		return ag_ext_route(req);
	if (ag_bash_delete(req->ctx, req->subpath) < 0)
		return ag_execd_error(req, MHD_HTTP_NOT_FOUND, AG_E_CONTEXT_NOT_FOUND, "context %.200s not found",
				      req->subpath);
	return ag_reply_empty(req, MHD_HTTP_OK);
}

enum MHD_Result ag_execd_code_interrupt(struct ag_req *req)
{
	const char *id = query(req, "id");

	if (!bash_context(req, id))
		return ag_ext_route(req);
	if (ag_bash_interrupt(req->ctx->sessions, id) < 0)
		return ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_CONTEXT_NOT_FOUND,
				      "context %.200s not found", id);
	return ag_reply_empty(req, MHD_HTTP_OK);
}
