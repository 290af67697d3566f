/* Calls to the AIO runtime API ({success, message, data} envelopes). */
#ifndef ALLOX_AIO_H
#define ALLOX_AIO_H

#include <jansson.h>

#include "lib/http.h"

/* POST PATH with BODY (or GET when BODY is NULL); on success *DATA is the
 * envelope's data (new reference, never NULL). HTTP errors become
 * "AIO API error (<status>): <message>"; success=false or a missing data
 * member an error with the server's message or NO_DATA_MESSAGE. */
int ax_aio_call(ax_http *aio, const char *path, const json_t *body, const char *no_data_message, json_t **data,
		ax_error *err);

/* The decoding half of ax_aio_call: the answer STATUS with BODY (LEN bytes,
 * need not be NUL-terminated). Fuzzed by tests/fuzz/fuzz_runtime.c. */
int ax_aio_decode(long status, const char *body, size_t len, const char *no_data_message, json_t **data,
		  ax_error *err);

#endif
