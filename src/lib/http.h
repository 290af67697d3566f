/*
 * A small JSON-over-HTTP client on libcurl, for the lifecycle, execd and AIO
 * planes: TCP or a unix socket, extra headers (API key, endpoint headers),
 * per-request timeout, and whole-body responses. Streaming variants come
 * with the commands that need them.
 */
#ifndef ALLOX_HTTP_H
#define ALLOX_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

struct curl_slist;

#include "error.h"

typedef struct ax_http {
	char *base;          /* "http://host:port/v1"; for a unix socket "http://localhost/v1" */
	char *unix_socket;   /* NULL for TCP */
	json_t *headers;     /* name -> value, sent with every request */
	long timeout_s;      /* whole-request timeout; 0 = none */
	bool verbose;        /* log each request to stderr */
	bool no_retry;       /* a caller with its own retry loop (a readiness probe): one attempt */
	void *curl;          /* one easy handle reused across requests, so its connection is too */
} ax_http;

typedef struct ax_http_response {
	long status;
	char *body;          /* NUL-terminated */
	size_t len;
} ax_http_response;

int ax_http_init(ax_http *c, const char *base, const char *unix_socket, long timeout_s, ax_error *err);
void ax_http_free(ax_http *c);
void ax_http_set_header(ax_http *c, const char *name, const char *value);
void ax_http_response_free(ax_http_response *r);

/* METHOD BASE+PATH with BODY (JSON, may be NULL). Transport failures are
 * errors (code "CONNECTION"); any HTTP status is a success here. */
int ax_http_request(ax_http *c, const char *method, const char *path, const json_t *body,
		    ax_http_response *resp, ax_error *err);

/* The same with HEADERS ("Name: value", NULL-terminated) instead of the
 * default "Accept: application/json". */
int ax_http_request_headers(ax_http *c, const char *method, const char *path, const char *const *headers,
			    const json_t *body, ax_http_response *resp, ax_error *err);

/*
 * Lower level, for streaming: begin prepares the connection's handle with the
 * URL, method, base headers, timeout and socket; the caller then sets its own
 * options on call->curl (CURLOPT_WRITEFUNCTION, CURLOPT_MIMEPOST, a read
 * callback, CURLOPT_TIMEOUT 0 for a stream...), performs, and ends.
 * A callback that fails should fill the caller's ax_error and set
 * call->callback_failed, so perform keeps that message.
 */
typedef struct ax_http_call {
	void *curl;            /* CURL * */
	struct curl_slist *headers;
	char *url;
	char *payload;
	const char *method;
	const char *unix_socket;
	bool verbose;
	bool callback_failed;
	char errbuf[256];
} ax_http_call;

int ax_http_begin(ax_http *c, ax_http_call *call, const char *method, const char *path, ax_error *err);
void ax_http_add_header(ax_http_call *call, const char *line);
int ax_http_perform(ax_http_call *call, long *status, ax_error *err);
void ax_http_end(ax_http_call *call);

/* Header NAME of the last response received on C, or NULL; valid until
 * the next request on C. */
const char *ax_http_last_header(ax_http *c, const char *name);

/* A response body collected in memory, NUL-terminated: pass
 * ax_http_buffer_write as CURLOPT_WRITEFUNCTION and the buffer as its data.
 * OOM is set (and the transfer aborted) when memory runs out; free DATA. */
typedef struct ax_http_buffer {
	char *data;
	size_t len, cap;
	bool oom;
} ax_http_buffer;
size_t ax_http_buffer_write(char *ptr, size_t size, size_t nmemb, void *buffer);

/* Percent-encode S for a query string; malloc'd. */
char *ax_http_escape(const char *s);

#endif
