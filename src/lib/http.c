#include "config.h"

#include "lib/http.h"
#include "lib/http_backend.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>

#include "lib/http_retry.h"

int ax_http_init(ax_http *c, const char *base, const char *unix_socket, long timeout_s, ax_error *err)
{
	memset(c, 0, sizeof *c);
	c->base = strdup(base);
	c->unix_socket = unix_socket ? strdup(unix_socket) : NULL;
	c->headers = json_object();
	c->last_headers = json_object();
	c->timeout_s = timeout_s;
	if (!c->base || (unix_socket && !c->unix_socket) || !c->headers || !c->last_headers) {
		ax_http_free(c);
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	}
	return 0;
}

void ax_http_free(ax_http *c)
{
	ax_http_native_close(c);
	ax_http_curl_cleanup(c);
	free(c->base);
	free(c->unix_socket);
	json_decref(c->headers);
	json_decref(c->last_headers);
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

size_t ax_http_buffer_write(char *ptr, size_t n, void *user)
{
	ax_http_buffer *s = user;

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
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(s);
	char *out = malloc(3 * n + 1), *o = out;

	if (!out)
		return NULL;
	/* RFC 3986 unreserved characters (ASCII, whatever the locale) stay; every other byte is %XX. */
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' ||
		    *p == '.' || *p == '_' || *p == '~') {
			*o++ = (char)*p;
		} else {
			*o++ = '%';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 15];
		}
	}
	*o = '\0';
	return out;
}

void ax_http_headers_reset(ax_http *c)
{
	json_object_clear(c->last_headers);
}

void ax_http_header_note(ax_http *c, const char *name, size_t nlen, const char *value, size_t vlen)
{
	char key[128];
	char *v;

	if (nlen == 0 || nlen >= sizeof key)
		return;
	for (size_t i = 0; i < nlen; i++)
		key[i] = (char)tolower((unsigned char)name[i]);
	key[nlen] = '\0';
	while (vlen && (*value == ' ' || *value == '\t'))
		value++, vlen--;
	while (vlen && (value[vlen - 1] == ' ' || value[vlen - 1] == '\t' || value[vlen - 1] == '\r' ||
			value[vlen - 1] == '\n'))
		vlen--;
	v = strndup(value, vlen);
	if (v)
		json_object_set_new(c->last_headers, key, json_string(v));
	free(v);
}

const char *ax_http_last_header(ax_http *c, const char *name)
{
	char key[128];
	size_t n = strlen(name);

	if (!c->last_headers || n >= sizeof key)
		return NULL;
	for (size_t i = 0; i <= n; i++)
		key[i] = (char)tolower((unsigned char)name[i]);
	return json_string_value(json_object_get(c->last_headers, key));
}

int ax_http_begin(ax_http *c, ax_http_call *call, const char *method, const char *path, ax_error *err)
{
	const char *name;
	json_t *value;
	char *line;

	memset(call, 0, sizeof *call);
	call->file_fd = call->sink_fd = -1;
	call->conn = c;
	call->method = method;
	call->timeout_s = c->timeout_s;
	call->verbose = c->verbose;
	call->unix_socket = c->unix_socket;
	if (asprintf(&call->url, "%s%s", c->base, path) < 0) {
		call->url = NULL;
		ax_fail(err, AX_CODE_NOMEM, "out of memory");
		return -1;
	}
	json_object_foreach(c->headers, name, value) {
		if (asprintf(&line, "%s: %s", name, json_string_value(value)) < 0)
			continue;
		ax_http_add_header(call, line);
		free(line);
	}
	ax_http_add_header(call, "User-Agent: allox-cli/" PACKAGE_VERSION);
	if (call->oom)
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	return 0;
}

void ax_http_add_header(ax_http_call *call, const char *line)
{
	char **grown = realloc(call->headers, (call->nheaders + 1) * sizeof *grown);
	char *copy = strdup(line);

	if (!grown || !copy) {
		if (grown)
			call->headers = grown;
		free(copy);
		call->oom = true;
		return;
	}
	call->headers = grown;
	call->headers[call->nheaders++] = copy;
}

int ax_http_set_payload(ax_http_call *call, const char *data, size_t len)
{
	free(call->payload);
	call->payload = malloc(len + 1);
	if (!call->payload) {
		call->oom = true;
		return -1;
	}
	memcpy(call->payload, data, len);
	call->payload[len] = '\0';
	call->payload_len = len;
	return 0;
}

/* Proxies, and which hosts skip them (no_proxy), are libcurl's business:
 * with one configured, plain http goes through libcurl too. */
static bool proxy_configured(void)
{
	static const char *const vars[] = { "http_proxy", "all_proxy", "ALL_PROXY", NULL };

	for (const char *const *v = vars; *v; v++) {
		const char *value = getenv(*v);

		if (value && *value)
			return true;
	}
	return false;
}

int ax_http_perform(ax_http_call *call, long *status, ax_error *err)
{
	int rc;

	if (call->oom || !call->url)
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	if (call->verbose)
		fprintf(stderr, "[verbose] %s %s%s%s\n", call->method, call->url, call->unix_socket ? " via " : "",
			call->unix_socket ? call->unix_socket : "");
	call->errbuf[0] = '\0';
	if (strncmp(call->url, "https://", 8) == 0 || (!call->unix_socket && proxy_configured()))
		rc = ax_http_curl_perform(call);
	else
		rc = ax_http_native_perform(call);
	if (rc < 0) {
		/* The callback said why; keep its message if it set one. */
		if (call->callback_failed && err && err->message[0])
			return -1;
		return ax_fail(err, AX_CODE_CONNECTION, "%s %s: %s", call->method,
			       call->unix_socket ? call->unix_socket : call->url,
			       call->errbuf[0] ? call->errbuf : "transfer failed");
	}
	*status = call->status;
	if (call->verbose)
		fprintf(stderr, "[verbose]   -> %ld\n", *status);
	return 0;
}

void ax_http_end(ax_http_call *call)
{
	for (size_t i = 0; i < call->nheaders; i++)
		free(call->headers[i]);
	free(call->headers);
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
			ax_fail(err, AX_CODE_NOMEM, "out of memory");
			goto out;
		}
		call.payload_len = strlen(call.payload);
		ax_http_add_header(&call, "Content-Type: application/json");
	}
	call.write_cb = ax_http_buffer_write;
	call.write_data = &s;
	if (ax_http_perform(&call, &resp->status, err) < 0)
		goto out;
	if (s.oom) {
		ax_fail(err, AX_CODE_NOMEM, "out of memory reading the response");
		goto out;
	}
	resp->body = s.data ? s.data : strdup("");
	resp->len = s.len;
	s.data = NULL;
	if (!resp->body) {
		ax_fail(err, AX_CODE_NOMEM, "out of memory");
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
		transport = ret < 0 && e->code == AX_CODE_CONNECTION;
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
