#include "agent/execd/execd_code.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "agent/core/ext_loader.h"
#include "agent/execd/execd_command.h"
#include "agent/execd/execd_http.h"
#include "agent/execd/execd_session.h"
#include "agent/ext/jupyter/jupyter_spec.h"

/* Does the run name a context id or a language? */
static int names_context(const json_t *body)
{
	const json_t *context = json_object_get(body, "context");
	const char *id = json_string_value(json_object_get(context, "id"));
	const char *language = json_string_value(json_object_get(context, "language"));

	/* Anything malformed goes to the module, which says what is wrong. */
	if (context && !json_is_object(context) && !json_is_null(context))
		return 1;
	return (id && *id) || (language && *language) || json_object_get(context, "id") ||
	       json_object_get(context, "language");
}

/* Run CODE as POST /command would: the request body becomes
 * {"command": CODE} for the command handler. */
static enum MHD_Result run_as_command(struct ag_req *req, const json_t *code)
{
	char *saved = req->body, *body;
	size_t saved_len = req->body_len;
	json_t *cmd = json_pack("{s:O}", "command", code);
	enum MHD_Result rc;

	body = cmd ? json_dumps(cmd, JSON_COMPACT) : NULL;
	json_decref(cmd);
	if (!body)
		return ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "out of memory");
	req->body = body;
	req->body_len = strlen(body);
	rc = ag_execd_run(req);
	req->body = saved;
	req->body_len = saved_len;
	free(body);
	return rc;
}

bool ag_execd_code_bash(const char *language)
{
	struct ag_error err = { 0 };
	struct jk_spec spec;

	if (!language || strcasecmp(language, "bash") != 0)
		return false;
	/* Read each time: a kernel installed later takes over new contexts. */
	if (jk_spec_for_language("bash", &spec, &err) == 0) {
		jk_spec_free(&spec);
		return false;
	}
	return err.status == 404;
}

/* The bash context a run goes to, in ID: the one it names, or the default
 * one when it names only the language bash. 0 when it is not a bash
 * session's run (the module's then), 1 when it is, -1 after a reply. */
static int bash_target(struct ag_req *req, const json_t *body, char id[AG_SESSION_ID_LEN + 1], enum MHD_Result *rc)
{
	const json_t *context = json_object_get(body, "context");
	const char *named = json_string_value(json_object_get(context, "id"));
	const char *language = json_string_value(json_object_get(context, "language"));
	ax_error err;

	if (named && *named) {
		if (strlen(named) > AG_SESSION_ID_LEN || !ag_bash_is_context(req->ctx->sessions, named))
			return 0;
		strcpy(id, named);
		return 1;
	}
	if (!ag_execd_code_bash(language))
		return 0;
	if (ag_bash_default_context(req->ctx, id, &err) < 0) {
		*rc = ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "error creating context: %s",
				     err.message);
		return -1;
	}
	return 1;
}

/* Run CODE in bash context ID. */
static enum MHD_Result run_in_bash(struct ag_req *req, const json_t *code, const char *id)
{
	struct ag_bash *s;
	bool busy;

	if (strlen(json_string_value(code)) != json_string_length(code))
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST,
				      "code must not contain NUL bytes in a bash context");
	s = ag_bash_begin(req->ctx->sessions, id, &busy);
	if (!s)
		return busy ? ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST,
					     "context %s is running another execution", id)
			    : ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_CONTEXT_NOT_FOUND,
					     "context %s not found", id);
	return ag_bash_stream(req, s, NULL, json_string_value(code), 0, true);
}

enum MHD_Result ag_execd_code_run(struct ag_req *req)
{
	char id[AG_SESSION_ID_LEN + 1];
	enum MHD_Result rc = MHD_NO;
	json_t *body = ag_execd_body_json(req, &rc);
	const json_t *code;
	int bash;

	if (!body)
		return rc;
	code = json_object_get(body, "code");
	if (json_is_string(code) && !names_context(body))
		rc = run_as_command(req, code);
	else if (!json_is_string(code) || (bash = bash_target(req, body, id, &rc)) == 0)
		rc = ag_ext_route(req);
	else if (bash > 0)
		rc = run_in_bash(req, code, id);
	json_decref(body);
	return rc;
}
