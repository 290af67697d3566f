/* The two transports behind ax_http_perform (src/lib/http.c). Each returns 0
 * when a response was received (call->status set), or -1 with the reason in
 * call->errbuf (or call->callback_failed when a callback gave up). */
#ifndef ALLOX_HTTP_BACKEND_H
#define ALLOX_HTTP_BACKEND_H

#include "lib/http.h"

int ax_http_native_perform(ax_http_call *call);
void ax_http_native_close(ax_http *c);

int ax_http_curl_perform(ax_http_call *call);
void ax_http_curl_cleanup(ax_http *c);

/* Response headers, as they arrive: forget the last response's, then note each. */
void ax_http_headers_reset(ax_http *c);
void ax_http_header_note(ax_http *c, const char *name, size_t nlen, const char *value, size_t vlen);

#endif
