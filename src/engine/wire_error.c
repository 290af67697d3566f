/* Wire codes and their HTTP statuses. */
#include "engine/wire_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* By the part after "AREA::": the same kind of failure has the same status
 * whatever the area (SANDBOX::, SNAPSHOT::, VOLUME::, GENERAL::). */
static const struct {
	const char *kind;
	int status;
} statuses[] = {
	{ "INVALID_PARAMETER", 400 },
	{ "INVALID_METADATA_LABEL", 400 },
	{ "INVALID_METADATA_FORMAT", 400 },
	{ "INVALID_EXPIRATION", 400 },
	{ "UNAUTHORIZED", 401 },
	{ "NOT_FOUND", 404 },
	{ "PORT_NOT_LISTENING", 404 },
	{ "METHOD_NOT_ALLOWED", 405 },
	{ "NOT_RUNNING", 409 },
	{ "NOT_PAUSED", 409 },
	{ "IN_USE", 409 },
	{ "INVALID_SOURCE_STATE", 409 },
	{ "INVALID_STATE", 409 },
	{ "NOT_READY", 409 },
	{ "INVALID_RESTORE_CONFIG", 409 },
	{ "TOO_LARGE", 413 },
	{ "BAD_GATEWAY", 502 },
};

/* CODE NULL: the message alone, as text/plain. */
static void resp_message(ax_resp *resp, int status, const char *code, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

static void resp_message(ax_resp *resp, int status, const char *code, const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof msg, fmt, ap);
	json_decref(resp->body);
	resp->status = status;
	resp->body = code ? json_pack("{s:s, s:s}", "code", code, "message", msg) : json_string(msg);
	resp->text = !code;
}

void ax_resp_error(ax_resp *resp, int status, const char *code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	resp_message(resp, status, code, fmt, ap);
	va_end(ap);
}

void ax_resp_text(ax_resp *resp, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	resp_message(resp, status, NULL, fmt, ap);
	va_end(ap);
}

int ax_wire_fail(ax_error *err, const char *code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ax_vfail(err, AX_CODE_SERVER, fmt, ap);
	va_end(ap);
	ax_error_peer_code(err, code);
	return -1;
}

int ax_wire_status(const char *code)
{
	const char *sep = strstr(code, "::");
	const char *kind = sep ? sep + 2 : code;

	for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++)
		if (strcmp(kind, statuses[i].kind) == 0)
			return statuses[i].status;
	return 500;
}

void ax_resp_fail(ax_resp *resp, const ax_error *err)
{
	/* A failure below the domain code (a code without an area) is the
	 * engine's own: the client sees it as such, with its message. */
	const char *code = strstr(err->peer_code, "::") ? err->peer_code : "GENERAL::UNKNOWN_ERROR";

	ax_resp_error(resp, ax_wire_status(code), code, "%s", err->message);
}
