#include "config.h"

#include "http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>

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

typedef struct sink {
	char *data;
	size_t len, cap;
	bool oom;
} sink;

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *user)
{
	sink *s = user;
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

int ax_http_request(ax_http *c, const char *method, const char *path, const json_t *body,
		    ax_http_response *resp, ax_error *err)
{
	CURL *curl = c->curl;
	struct curl_slist *hdrs = NULL;
	char errbuf[CURL_ERROR_SIZE] = "";
	char *url = NULL, *payload = NULL;
	const char *name;
	json_t *value;
	sink s = { 0 };
	CURLcode rc;
	int ret = -1;

	memset(resp, 0, sizeof *resp);
	if (!curl) {
		/* The handle is created on first use and kept: later requests reuse its connection. */
		curl = curl_easy_init();
		if (!curl)
			return ax_fail(err, AX_EXIT_FAILURE, "NOMEM", "cannot initialise libcurl");
		c->curl = curl;
	} else {
		curl_easy_reset(curl);
	}
	if (asprintf(&url, "%s%s", c->base, path) < 0) {
		url = NULL;
		ax_fail(err, AX_EXIT_FAILURE, "NOMEM", "out of memory");
		goto out;
	}
	json_object_foreach(c->headers, name, value) {
		char *line;

		if (asprintf(&line, "%s: %s", name, json_string_value(value)) < 0)
			continue;
		hdrs = curl_slist_append(hdrs, line);
		free(line);
	}
	hdrs = curl_slist_append(hdrs, "Accept: application/json");
	hdrs = curl_slist_append(hdrs, "User-Agent: allox-cli/" PACKAGE_VERSION);
	if (body) {
		payload = json_dumps(body, JSON_COMPACT | JSON_PRESERVE_ORDER);
		if (!payload) {
			ax_fail(err, AX_EXIT_FAILURE, "NOMEM", "out of memory");
			goto out;
		}
		hdrs = curl_slist_append(hdrs, "Content-Type: application/json");
		curl_easy_setopt(curl, CURLOPT_POSTFIELDS, payload);
	}
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
	if (strcmp(method, "GET") == 0)
		curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
	else if (!body && strcmp(method, "POST") == 0)
		curl_easy_setopt(curl, CURLOPT_POSTFIELDS, "");
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 10L);
	if (c->timeout_s > 0)
		curl_easy_setopt(curl, CURLOPT_TIMEOUT, c->timeout_s);
	if (c->unix_socket)
		curl_easy_setopt(curl, CURLOPT_UNIX_SOCKET_PATH, c->unix_socket);
	if (c->verbose)
		fprintf(stderr, "[verbose] %s %s%s%s\n", method, url, c->unix_socket ? " via " : "",
			c->unix_socket ? c->unix_socket : "");
	rc = curl_easy_perform(curl);
	if (s.oom) {
		ax_fail(err, AX_EXIT_FAILURE, "NOMEM", "out of memory reading the response");
		goto out;
	}
	if (rc != CURLE_OK) {
		ax_fail(err, AX_EXIT_FAILURE, "CONNECTION", "%s %s: %s", method, c->unix_socket ? c->unix_socket : url,
			errbuf[0] ? errbuf : curl_easy_strerror(rc));
		goto out;
	}
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &resp->status);
	resp->body = s.data ? s.data : strdup("");
	resp->len = s.len;
	s.data = NULL;
	if (!resp->body) {
		ax_fail(err, AX_EXIT_FAILURE, "NOMEM", "out of memory");
		goto out;
	}
	if (c->verbose)
		fprintf(stderr, "[verbose]   -> %ld (%zu bytes)\n", resp->status, resp->len);
	ret = 0;
out:
	free(s.data);
	free(url);
	free(payload);
	curl_slist_free_all(hdrs);
	return ret;
}
