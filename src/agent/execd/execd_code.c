#include "agent/execd/execd_code.h"

#include <stdlib.h>
#include <string.h>

#include "agent/core/ext_loader.h"
#include "agent/execd/execd_command.h"
#include "agent/execd/execd_http.h"

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

enum MHD_Result ag_execd_code_run(struct ag_req *req)
{
	enum MHD_Result rc;
	json_t *body = ag_execd_body_json(req, &rc);
	const json_t *code;

	if (!body)
		return rc;
	code = json_object_get(body, "code");
	if (json_is_string(code) && !names_context(body))
		rc = run_as_command(req, code);
	else
		rc = ag_ext_route(req);
	json_decref(body);
	return rc;
}
