/* The execd error replies, shared with the extension module, whose
 * code-interpreting routes answer in the same ErrorResponse shape. */
#include "agent/execd/execd_http.h"

#include <stdarg.h>

enum MHD_Result ag_execd_error(struct ag_req *req, unsigned status, const char *code, const char *fmt, ...)
{
	json_t *o;
	va_list ap;

	va_start(ap, fmt);
	o = ag_vcode_error(code, fmt, ap);
	va_end(ap);
	return ag_reply_json(req, status, o);
}

json_t *ag_execd_body_json(struct ag_req *req, enum MHD_Result *rc)
{
	json_error_t jerr;
	json_t *o = json_loadb(req->body, req->body_len, 0, &jerr);

	if (!o)
		*rc = ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST,
				     "error parsing request, MAYBE invalid body format. %s", jerr.text);
	return o;
}
