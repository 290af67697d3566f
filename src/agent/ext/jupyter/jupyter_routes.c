/* /v1/jupyter/execute, /v1/jupyter/info and the /v1/jupyter/sessions
 * routes: request checks shaped like the AIO server's (FastAPI 422s), then
 * the session registry (jupyter.c). */
#include "agent/ext/jupyter/routes_jupyter.h"

#include <stdio.h>
#include <string.h>

#include "agent/aio/aio_common.h"
#include "agent/ext/jupyter/jupyter.h"

/* The AIO spec's bounds for timeout. */
#define TIMEOUT_MIN 1
#define TIMEOUT_MAX 300

static enum MHD_Result reply_invalid(struct ag_req *req, struct aio_args *a)
{
	enum MHD_Result rc = aio_reply_invalid(req, a);

	aio_args_free(a);
	return rc;
}

/* timeout: an integer from 1 to 300, or absent/null for the default. */
static double timeout_arg(struct aio_args *a)
{
	long long t;

	if (!aio_arg_int(a, "timeout", &t))
		return 0;
	if (t < TIMEOUT_MIN)
		aio_args_invalid(a, "timeout", "greater_than_equal", "Input should be greater than or equal to 1");
	else if (t > TIMEOUT_MAX)
		aio_args_invalid(a, "timeout", "less_than_equal", "Input should be less than or equal to 300");
	return (double)t;
}

/* The connection's socket, watched for the client hanging up (Ctrl-C). */
static int client_socket(const struct ag_req *req)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(req->conn, MHD_CONNECTION_INFO_CONNECTION_FD);

	return ci ? ci->connect_fd : -1;
}

enum MHD_Result ag_jupyter_execute_route(struct ag_req *req)
{
	const char *code, *kernel, *session, *cwd;
	struct ag_error err = { 0 };
	json_t *data = NULL;
	struct aio_args a;
	enum MHD_Result rc;
	double timeout;

	aio_args_body(req, &a);
	code = aio_arg_str(&a, "code", true);
	timeout = timeout_arg(&a);
	kernel = aio_arg_str(&a, "kernel_name", false);
	session = aio_arg_str(&a, "session_id", false);
	cwd = aio_arg_str(&a, "cwd", false);
	if (!aio_args_ok(&a))
		return reply_invalid(req, &a);
	if (ag_jupyter_execute_for(req->ctx->jupyter, code, kernel, session, cwd, timeout, client_socket(req), &data,
				   &err) < 0)
		rc = ag_reply_error(req, &err);
	else
		rc = ag_reply_json(req, MHD_HTTP_OK, ag_envelope("Code executed successfully", data));
	aio_args_free(&a);
	return rc;
}

enum MHD_Result ag_jupyter_info_route(struct ag_req *req)
{
	return ag_reply_json(req, MHD_HTTP_OK,
			     ag_envelope("Jupyter information retrieved", ag_jupyter_info(req->ctx->jupyter)));
}

enum MHD_Result ag_jupyter_sessions_route(struct ag_req *req)
{
	return ag_reply_json(req, MHD_HTTP_OK,
			     ag_envelope("Active sessions retrieved", ag_jupyter_sessions(req->ctx->jupyter)));
}

enum MHD_Result ag_jupyter_create_route(struct ag_req *req)
{
	const char *kernel, *session, *cwd;
	struct ag_error err = { 0 };
	json_t *data = NULL;
	struct aio_args a;
	enum MHD_Result rc;

	aio_args_body(req, &a);
	session = aio_arg_str(&a, "session_id", false);
	kernel = aio_arg_str(&a, "kernel_name", false);
	cwd = aio_arg_str(&a, "cwd", false);
	if (!aio_args_ok(&a))
		return reply_invalid(req, &a);
	if (ag_jupyter_create(req->ctx->jupyter, session, kernel, cwd, &data, &err) < 0)
		rc = ag_reply_error(req, &err);
	else
		rc = ag_reply_json(req, MHD_HTTP_OK,
				   ag_envelope(json_string_value(json_object_get(data, "message")), data));
	aio_args_free(&a);
	return rc;
}

enum MHD_Result ag_jupyter_delete_route(struct ag_req *req)
{
	struct ag_error err = { 0 };

	if (!*req->subpath)
		return ag_reply_failure(req, MHD_HTTP_NOT_FOUND, "Session not found: (empty id)");
	if (ag_jupyter_delete(req->ctx->jupyter, req->subpath, &err) < 0)
		return ag_reply_error(req, &err);
	return ag_reply_json(req, MHD_HTTP_OK, ag_envelope("Session deleted", NULL));
}

enum MHD_Result ag_jupyter_delete_all_route(struct ag_req *req)
{
	int n = ag_jupyter_delete_all(req->ctx->jupyter);
	char msg[64];

	snprintf(msg, sizeof msg, "%d session%s deleted", n, n == 1 ? "" : "s");
	return ag_reply_json(req, MHD_HTTP_OK, ag_envelope(msg, json_pack("{s:i}", "deleted", n)));
}
