/*
 * The HTTP client of the lifecycle, execd and AIO planes: TCP or a unix
 * socket, extra headers (API key, endpoint headers), per-request timeouts,
 * whole-body and streamed requests and responses.
 *
 * Plain http:// (the local engine's unix socket, agents on loopback, most
 * servers) goes through a small client of our own on libhttp-parser;
 * https:// goes through libcurl, loaded with dlopen on first use. Linking
 * libcurl costs every process ~3.5 ms and 36 shared libraries before main()
 * (docs/design.md, "HTTP transport"), paid even by commands that never touch
 * the network.
 */
#ifndef ALLOX_HTTP_H
#define ALLOX_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "lib/ax_error.h"

typedef struct ax_http {
	char *base;          /* "http://host:port/v1"; for a unix socket "http://localhost/v1" */
	char *unix_socket;   /* NULL for TCP */
	json_t *headers;     /* name -> value, sent with every request */
	long timeout_s;      /* whole-request timeout; 0 = none */
	bool verbose;        /* log each request to stderr */
	bool no_retry;       /* a caller with its own retry loop (a readiness probe): one attempt */
	int fd;              /* plain http: the kept-alive connection when CONNECTED */
	bool connected;
	bool fresh;          /* CONNECTED by the caller, never used: its failure is not a stale keep-alive's */
	void *curl;          /* https: libcurl and one handle reused across requests, so its connection is too */
	json_t *last_headers; /* lower-case name -> value of the last response */
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
 * Lower level, for streaming: begin prepares a call with the URL, method,
 * base headers and the connection's timeout; the caller then fills in what
 * it needs below, performs, and ends. A callback that fails should fill the
 * caller's ax_error and set call->callback_failed, so perform keeps that
 * message.
 */
/* Response body bytes; return N to go on, anything else aborts. */
typedef size_t (*ax_http_write_fn)(char *data, size_t n, void *user);
/* Request body bytes into BUF (at most N); 0 at the end, -1 aborts. */
typedef long long (*ax_http_read_fn)(char *buf, size_t n, void *user);
/* Called whenever data moved and at least every 100 ms; non-zero aborts. */
typedef int (*ax_http_progress_fn)(void *user, unsigned long long down, long long down_total,
				   unsigned long long up);

typedef struct ax_http_call {
	ax_http *conn;
	char *url;
	const char *method;
	char **headers;        /* "Name: value" lines */
	size_t nheaders;
	char *payload;         /* request body from memory (owned), or NULL */
	size_t payload_len;
	ax_http_read_fn read_cb;   /* or a streamed request body of read_size bytes */
	void *read_data;
	unsigned long long read_size;
	ax_http_write_fn write_cb; /* response body; NULL discards it */
	void *write_data;
	ax_http_progress_fn progress_cb;
	void *progress_data;
	long timeout_s;        /* whole request; from the connection, 0 = none (streams) */
	long stall_timeout_s;  /* fail when no byte moved for this long; 0 = never */
	size_t buffer_size;    /* I/O chunk; 0 = default */
	/* Zero-copy paths of the plain-http client (libcurl ignores them and
	 * uses read_cb/write_cb, which must describe the same bytes):
	 * - upload: the body is head, then file_len bytes of file_fd from
	 *   file_offset (sendfile), then tail; set file_fd >= 0 to use it;
	 * - download: a 200 answer with a Content-Length goes to sink_fd (a
	 *   regular file, at its offset) by splice, after the bytes already
	 *   read came through write_cb and before_sink (if set) flushed what
	 *   the caller buffered; set sink_fd >= 0 to use it. */
	int file_fd;
	unsigned long long file_offset, file_len;
	const char *head, *tail;
	size_t head_len, tail_len;
	int sink_fd;
	int (*before_sink)(void *user);
	void *before_sink_data;
	unsigned long long sunk; /* body bytes that went to sink_fd */
	int sink_errno;          /* why writing to sink_fd failed, or 0 */
	long status;           /* set once the response headers are in */
	const char *unix_socket;
	bool verbose;
	bool oom;
	bool callback_failed;
	char errbuf[256];
} ax_http_call;

int ax_http_begin(ax_http *c, ax_http_call *call, const char *method, const char *path, ax_error *err);
void ax_http_add_header(ax_http_call *call, const char *line);
/* Body from memory: copied. */
int ax_http_set_payload(ax_http_call *call, const char *data, size_t len);
int ax_http_perform(ax_http_call *call, long *status, ax_error *err);
void ax_http_end(ax_http_call *call);

/* Header NAME of the last response received on C, or NULL; valid until
 * the next request on C. */
const char *ax_http_last_header(ax_http *c, const char *name);

/* A response body collected in memory, NUL-terminated: pass
 * ax_http_buffer_write as write_cb and the buffer as its data.
 * OOM is set (and the transfer aborted) when memory runs out; free DATA. */
typedef struct ax_http_buffer {
	char *data;
	size_t len, cap;
	bool oom;
} ax_http_buffer;
size_t ax_http_buffer_write(char *ptr, size_t n, void *buffer);

/* Percent-encode S for a query string; malloc'd. */
char *ax_http_escape(const char *s);

#endif
