/* Streaming aio exec through the AIO shell session API. */
#include "cmd/aio_stream.h"

#include <string.h>

#include "api/aio_call.h"

/* Write what OUTPUT has beyond the *SHOWN bytes already written. */
static int show_new(ax_stream *out, const json_t *data, size_t *shown, ax_error *err)
{
	const char *s = json_string_value(json_object_get(data, "output"));
	size_t len = s ? strlen(s) : 0;

	if (len <= *shown)
		return 0;
	if (ax_stream_write(out, AX_STREAM_OUT, s + *shown, len - *shown) < 0)
		return ax_fail(err, AX_CODE_IO, "cannot write output");
	*shown = len;
	return 0;
}

static bool running(const json_t *data)
{
	const char *status = json_string_value(json_object_get(data, "status"));

	return status && strcmp(status, "running") == 0;
}

int ax_aio_exec_stream(ax_ctx *ctx, ax_http *aio, json_t *body, json_t **final, ax_error *err)
{
	json_t *data = NULL, *req;
	const char *sid;
	size_t shown = 0;
	int rc = 0;

	*final = NULL;
	json_object_set_new(body, "timeout", json_integer(1));
	json_object_set_new(body, "truncate", json_false());
	ctx->catch_interrupts();
	if (ax_aio_call(aio, "/v1/shell/exec", body, "AIO shell returned no command result", &data, err) < 0)
		return -1;
	sid = json_string_value(json_object_get(data, "session_id"));
	req = json_pack("{s:s, s:i}", "id", sid ? sid : "", "seconds", 1);
	while (rc == 0 && sid && running(data)) {
		json_t *next = NULL, *ignored = NULL;

		if (show_new(ctx->stream, data, &shown, err) < 0) {
			rc = -1;
			break;
		}
		if (*ctx->interrupted) {
			ax_aio_call(aio, "/v1/shell/kill", req, "no kill result", &ignored, err);
			json_decref(ignored);
			fprintf(ctx->err, "Interrupted: the command was stopped\n");
			rc = 128 + (int)*ctx->interrupted;
			break;
		}
		/* Wait up to a second for the end, then look at the output so far. */
		if (ax_aio_call(aio, "/v1/shell/wait", req, "no wait result", &ignored, err) < 0 ||
		    ax_aio_call(aio, "/v1/shell/view", req, "AIO shell returned no command result", &next, err) < 0) {
			json_decref(ignored);
			if (*ctx->interrupted)
				continue; /* the signal cut the request short: kill above */
			rc = -1;
			break;
		}
		json_decref(ignored);
		json_decref(data);
		data = next;
	}
	if (rc == 0 && show_new(ctx->stream, data, &shown, err) < 0)
		rc = -1;
	json_decref(req);
	if (rc != 0) {
		json_decref(data);
		return rc;
	}
	*final = data;
	return 0;
}
