/* The engine's errors on the wire. Domain code fails with a wire code
 * ("SANDBOX::NOT_FOUND", the lifecycle spec's ErrorResponse.code) in an
 * ax_error; the route handlers answer it with the HTTP status the code
 * stands for and the spec's {code, message} body. One table, here, says
 * which status each code means. */
#ifndef ALLOX_ENGINE_WIRE_ERROR_H
#define ALLOX_ENGINE_WIRE_ERROR_H

#include "lib/ax_error.h"
#include "engine/engine.h"

/* Fill ERR with wire code CODE; -1. */
int ax_wire_fail(ax_error *err, const char *code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The HTTP status of wire code CODE (500 for a code the table lacks). */
int ax_wire_status(const char *code);

/* Answer RESP with ERR: its code's status and {code, message}. */
void ax_resp_fail(ax_resp *resp, const ax_error *err);

#endif
