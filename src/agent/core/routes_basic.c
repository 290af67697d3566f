/* Health and context: GET /ping (execd), GET /v1/sandbox and
 * GET /v1/shell/sessions (AIO). */
#include <stdlib.h>

#include "agent/core/routes_basic.h"

#include "agent/aio/aio_session.h"
#include "agent/core/sysinfo.h"

/* execd: 200 with an empty body is the whole contract. */
enum MHD_Result ag_get_ping(struct ag_req *req)
{
	return ag_reply_empty(req, MHD_HTTP_OK);
}

/* AIO SandboxResponse: the envelope with "data" as text, plus home_dir,
 * workspace, version and detail at the top level. */
enum MHD_Result ag_get_sandbox(struct ag_req *req)
{
	json_t *detail = ag_sysinfo_detail();
	char *text = detail ? ag_sysinfo_text(detail, req->ctx->version, req->ctx->sandbox_id) : NULL;
	char *home = ag_sysinfo_home(), *ws = ag_sysinfo_workspace();
	json_t *o = NULL;

	if (detail && text && home && ws) {
		o = ag_envelope("Environment information retrieved", json_string(text));
		json_object_set_new(o, "home_dir", json_string(home));
		json_object_set_new(o, "workspace", json_string(ws));
		json_object_set_new(o, "version", json_string(req->ctx->version));
		json_object_set_new(o, "detail", detail);
		detail = NULL;
	}
	json_decref(detail);
	free(text);
	free(home);
	free(ws);
	if (!o)
		return ag_reply_failure(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	return ag_reply_json(req, MHD_HTTP_OK, o);
}

/* No shell sessions exist until the shell routes do: an empty map. */
enum MHD_Result ag_get_shell_sessions(struct ag_req *req)
{
	return ag_reply_json(req, MHD_HTTP_OK,
			     ag_envelope("Operation successful", aio_shell_sessions(req->ctx->aio_sessions)));
}
