#include "config.h"

#include "http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>
#include <curl/curl.h>

#include "http_retry.h"

int ax_http_init(ax_http *c, const char *base, const char *unix_socket, long timeout_s, ax_error *err)
{
	memset(c, 0, sizeof *c);
	c->base = strdup(base);
	c->unix_socket = unix_socket ? strdup(unix_socket) : NULL;
	c->headers = json_object();
	c->timeout_s = timeout_s;
	if (!c->base || (unix_socket && !c->unix_socket) || !c->headers) {
		ax_http_free(c);
		return ax_fail(err, AX_EXIT_FAILURE, "NOMEM", "out of memory");
	}
	return 0;
}

void ax_http_free(ax_http *c)
{
	if (c->curl)
		curl_easy_cleanup(c->curl);
	free(c->base);
	free(c->unix_socket);
	json_decref(c->headers);
	memset(c, 0, sizeof *c);
}

void ax_http_set_header(ax_http *c, const char *name, const char *value)
{
	json_object_set_new(c->headers, name, json_string(value));
}

void ax_http_response_free(ax_http_response *r)
{
	free(r->body);
	memset(r, 0, sizeof *r);
}

size_t ax_http_buffer_write(char *ptr, size_t size, size_t nmemb, void *user)
{
	ax_http_buffer *s = user;
	size_t n = size * nmemb;

	if (s->len + n + 1 > s->cap) {
		size_t cap = s->cap ? s->cap : 4096;
		char *grown;

		while (cap < s->len + n + 1)
			cap *= 2;
		grown = realloc(s->data, cap);
		if (!grown) {
			s->oom = true;
			return 0;
		}
		s->data = grown;
		s->cap = cap;
	}
	memcpy(s->data + s->len, ptr, n);
	s->len += n;
	s->data[s->len] = '\0';
	return n;
}

char *ax_http_escape(const char *s)
{
	char *e = curl_easy_escape(NULL, s, 0), *copy;

	if (!e)
		return NULL;
	copy = strdup(e);
	curl_free(e);
	return copy;
}

int ax_http_begin(ax_http *c, ax_http_call *call, const char *method, const char *path, ax_error *err)
{
	const char *name;
	json_t *value;

	memset(call, 0, sizeof *call);
	call->method = method;
	if (!c->curl) {
		/* The handle is created on first use and kept: later requests reuse its connection. */
		c->curl = curl_easy_init();
		if (!c->curl)
			return ax_fail(err, AX_EXIT_FAILURE, "NOMEM", "cannot initialise libcurl");
	} else {
		curl_easy_reset(c->curl);
	}
	call->curl = c->curl;
	if (asprintf(&call->url, "%s%s", c->base, path) < 0) {
		call->url = NULL;
		return ax_fail(err, AX_EXIT_FAILURE, "NOMEM", "out of memory");
	}
	json_object_foreach(c->headers, name, value) {
		char *line;

		if (asprintf(&line, "%s: %s", name, json_string_value(value)) < 0)
			continue;
		call->headers = curl_slist_append(call->headers, line);
		free(line);
	}
	call->headers = curl_slist_append(call->headers, "User-Agent: allox-cli/" PACKAGE_VERSION);
	curl_easy_setopt(call->curl, CURLOPT_URL, call->url);
	curl_easy_setopt(call->curl, CURLOPT_CUSTOMREQUEST, method);
	if (strcmp(method, "GET") == 0)
		curl_easy_setopt(call->curl, CURLOPT_HTTPGET, 1L);
	curl_easy_setopt(call->curl, CURLOPT_ERRORBUFFER, call->errbuf);
	curl_easy_setopt(call->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(call->curl, CURLOPT_CONNECTTIMEOUT, 10L);
	if (c->timeout_s > 0)
		curl_easy_setopt(call->curl, CURLOPT_TIMEOUT, c->timeout_s);
	if (c->unix_socket)
		curl_easy_setopt(call->curl, CURLOPT_UNIX_SOCKET_PATH, c->unix_socket);
	call->verbose = c->verbose;
	call->unix_socket = c->unix_socket;
	return 0;
}

void ax_http_add_header(ax_http_call *call, const char *line)
{
	call->headers = curl_slist_append(call->headers, line);
}

int ax_http_perform(ax_http_call *call, long *status, ax_error *err)
{
	CURLcode rc;

	curl_easy_setopt(call->curl, CURLOPT_HTTPHEADER, call->headers);
	if (call->verbose)
		fprintf(stderr, "[verbose] %s %s%s%s\n", call->method, call->url, call->unix_socket ? " via " : "",
			call->unix_socket ? call->unix_socket : "");
	rc = curl_easy_perform(call->curl);
	if (rc == CURLE_ABORTED_BY_CALLBACK || rc == CURLE_WRITE_ERROR || rc == CURLE_READ_ERROR) {
		/* The callback said why; keep its message if it set one. */
		if (err && err->message[0] && call->callback_failed)
			return -1;
	}
	if (rc != CURLE_OK)
		return ax_fail(err, AX_EXIT_FAILURE, "CONNECTION", "%s %s: %s", call->method,
			       call->unix_socket ? call->unix_socket : call->url,
			       call->errbuf[0] ? call->errbuf : curl_easy_strerror(rc));
	curl_easy_getinfo(call->curl, CURLINFO_RESPONSE_CODE, status);
	if (call->verbose)
		fprintf(stderr, "[verbose]   -> %ld\n", *status);
	return 0;
}

void ax_http_end(ax_http_call *call)
{
	curl_slist_free_all(call->headers);
	free(call->url);
	free(call->payload);
	memset(call, 0, sizeof *call);
}

int ax_http_request(ax_http *c, const char *method, const char *path, const json_t *body,
		    ax_http_response *resp, ax_error *err)
{
	static const char *const accept_json[] = { "Accept: application/json", NULL };

	return ax_http_request_headers(c, method, path, accept_json, body, resp, err);
}

static int request_once(ax_http *c, const char *method, const char *path, const char *const *headers,
			const json_t *body, ax_http_response *resp, ax_error *err)
{
	ax_http_call call;
	ax_http_buffer s = { 0 };
	int ret = -1;

	memset(resp, 0, sizeof *resp);
	if (ax_http_begin(c, &call, method, path, err) < 0)
		goto out;
	for (; headers && *headers; headers++)
		ax_http_add_header(&call, *headers);
	if (body) {
		call.payload = json_dumps(body, JSON_COMPACT | JSON_PRESERVE_ORDER);
		if (!call.payload) {
			ax_fail(err, AX_EXIT_FAILURE, "NOMEM", "out of memory");
			goto out;
		}
		ax_http_add_header(&call, "Content-Type: application/json");
		curl_easy_setopt(call.curl, CURLOPT_POSTFIELDS, call.payload);
	} else if (strcmp(method, "POST") == 0) {
		curl_easy_setopt(call.curl, CURLOPT_POSTFIELDS, "");
	}
	curl_easy_setopt(call.curl, CURLOPT_WRITEFUNCTION, ax_http_buffer_write);
	curl_easy_setopt(call.curl, CURLOPT_WRITEDATA, &s);
	if (ax_http_perform(&call, &resp->status, err) < 0)
		goto out;
	if (s.oom) {
		ax_fail(err, AX_EXIT_FAILURE, "NOMEM", "out of memory reading the response");
		goto out;
	}
	resp->body = s.data ? s.data : strdup("");
	resp->len = s.len;
	s.data = NULL;
	if (!resp->body) {
		ax_fail(err, AX_EXIT_FAILURE, "NOMEM", "out of memory");
		goto out;
	}
	ret = 0;
out:
	free(s.data);
	ax_http_end(&call);
	return ret;
}

/* Idempotent reads that failed in transit or met a gateway error are tried
 * again a bounded number of times (policy: http_retry.h); streams use
 * ax_http_begin/perform and are never retried. */
int ax_http_request_headers(ax_http *c, const char *method, const char *path, const char *const *headers,
			    const json_t *body, ax_http_response *resp, ax_error *err)
{
	ax_error local = { 0 };
	ax_error *e = err ? err : &local;
	int attempt, ret;

	for (attempt = 1;; attempt++) {
		unsigned int r = 0x80000000u;
		long ms;
		bool transport;

		ret = request_once(c, method, path, headers, body, resp, e);
		transport = ret < 0 && strcmp(e->code, "CONNECTION") == 0;
		if ((ret < 0 && !transport) || c->no_retry ||
		    !ax_http_should_retry(method, transport, ret < 0 ? 0 : resp->status, attempt))
			return ret;
		if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
			r = 0x80000000u;
		ms = ax_http_backoff_ms(attempt, r / 4294967296.0);
		if (c->verbose) {
			if (ret < 0)
				fprintf(stderr, "[verbose]   retry %d/%d in %ld ms: %s\n", attempt + 1, AX_HTTP_RETRY_ATTEMPTS, ms,
					e->message);
			else
				fprintf(stderr, "[verbose]   retry %d/%d in %ld ms: HTTP %ld\n", attempt + 1, AX_HTTP_RETRY_ATTEMPTS,
					ms, resp->status);
		}
		if (ret == 0)
			ax_http_response_free(resp);
		ax_error_clear(e);
		nanosleep(&(struct timespec){ ms / 1000, (ms % 1000) * 1000000L }, NULL);
	}
}

_Static_assert(sizeof(((ax_http_call *)0)->errbuf) >= CURL_ERROR_SIZE, "errbuf must hold CURL_ERROR_SIZE");

const char *ax_http_last_header(ax_http *c, const char *name)
{
	struct curl_header *h;

	if (!c->curl || curl_easy_header(c->curl, name, 0, CURLH_HEADER, -1, &h) != CURLHE_OK)
		return NULL;
	return h->value;
}
