/*
 * https:// through libcurl, loaded with dlopen on the first https request:
 * no other command pays for loading it and its 36 libraries (see http.h).
 * The neutral call of http.h maps onto one kept easy handle per ax_http.
 */
#include "config.h"

#include "lib/http_backend.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>

typedef struct curl_api {
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_perform)(CURL *);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	void (*easy_reset)(CURL *);
	void (*easy_cleanup)(CURL *);
	const char *(*easy_strerror)(CURLcode);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
} curl_api;

/* What an ax_http keeps for https: the library, its functions, one handle. */
typedef struct curl_conn {
	void *lib;
	curl_api api;
	CURL *easy;
} curl_conn;

static curl_conn *load_curl(char *why, size_t len)
{
	curl_conn *cc = calloc(1, sizeof *cc);
	curl_api *api;

	if (!cc) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	api = &cc->api;
	cc->lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
	if (cc->lib) {
		*(void **)&api->easy_init = dlsym(cc->lib, "curl_easy_init");
		*(void **)&api->easy_setopt = dlsym(cc->lib, "curl_easy_setopt");
		*(void **)&api->easy_perform = dlsym(cc->lib, "curl_easy_perform");
		*(void **)&api->easy_getinfo = dlsym(cc->lib, "curl_easy_getinfo");
		*(void **)&api->easy_reset = dlsym(cc->lib, "curl_easy_reset");
		*(void **)&api->easy_cleanup = dlsym(cc->lib, "curl_easy_cleanup");
		*(void **)&api->easy_strerror = dlsym(cc->lib, "curl_easy_strerror");
		*(void **)&api->slist_append = dlsym(cc->lib, "curl_slist_append");
		*(void **)&api->slist_free_all = dlsym(cc->lib, "curl_slist_free_all");
	}
	if (!cc->lib || !api->easy_init || !api->easy_setopt || !api->easy_perform || !api->easy_getinfo ||
	    !api->easy_reset || !api->easy_cleanup || !api->easy_strerror || !api->slist_append ||
	    !api->slist_free_all) {
		snprintf(why, len, "https needs libcurl (Debian package libcurl4): %s", dlerror());
		if (cc->lib)
			dlclose(cc->lib);
		free(cc);
		return NULL;
	}
	cc->easy = api->easy_init();
	if (!cc->easy) {
		snprintf(why, len, "cannot initialise libcurl");
		dlclose(cc->lib);
		free(cc);
		return NULL;
	}
	return cc;
}

typedef struct glue {
	const curl_api *api;
	ax_http_call *call;
	CURL *curl;
} glue;

static size_t on_write(char *ptr, size_t size, size_t nmemb, void *ud)
{
	glue *g = ud;
	size_t n = size * nmemb;

	if (!g->call->status)
		g->api->easy_getinfo(g->curl, CURLINFO_RESPONSE_CODE, &g->call->status);
	if (!g->call->write_cb)
		return n;
	return g->call->write_cb(ptr, n, g->call->write_data);
}

static size_t on_header(char *line, size_t size, size_t nmemb, void *ud)
{
	glue *g = ud;
	size_t n = size * nmemb;
	const char *colon = memchr(line, ':', n);

	/* Each response (after a redirect or 1xx too) starts with its status line. */
	if (n > 5 && strncmp(line, "HTTP/", 5) == 0)
		ax_http_headers_reset(g->call->conn);
	else if (colon)
		ax_http_header_note(g->call->conn, line, (size_t)(colon - line), colon + 1,
				    n - (size_t)(colon + 1 - line));
	return n;
}

static size_t on_read(char *buf, size_t size, size_t nmemb, void *ud)
{
	glue *g = ud;
	long long n = g->call->read_cb(buf, size * nmemb, g->call->read_data);

	if (n < 0) {
		g->call->callback_failed = true;
		return CURL_READFUNC_ABORT;
	}
	return (size_t)n;
}

static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	glue *g = ud;

	(void)ultotal;
	if (!g->call->progress_cb)
		return 0;
	return g->call->progress_cb(g->call->progress_data, (unsigned long long)dlnow,
				    dltotal > 0 ? (long long)dltotal : -1, (unsigned long long)ulnow);
}

int ax_http_curl_perform(ax_http_call *call)
{
	ax_http *c = call->conn;
	struct curl_slist *headers = NULL;
	const curl_api *api;
	curl_conn *cc;
	glue g;
	CURLcode rc;

	/* Loaded on the first https request of this connection; later ones
	 * reuse the handle, and so its connection. */
	if (!c->curl) {
		c->curl = load_curl(call->errbuf, sizeof call->errbuf);
		if (!c->curl)
			return -1;
	} else {
		cc = c->curl;
		cc->api.easy_reset(cc->easy);
	}
	cc = c->curl;
	api = &cc->api;
	g = (glue){ api, call, cc->easy };
	for (size_t i = 0; i < call->nheaders; i++)
		headers = api->slist_append(headers, call->headers[i]);
	/* No 100-continue round trip before a body: our servers read it either way. */
	if (call->read_cb || call->payload)
		headers = api->slist_append(headers, "Expect:");
	api->easy_setopt(g.curl, CURLOPT_URL, call->url);
	api->easy_setopt(g.curl, CURLOPT_CUSTOMREQUEST, call->method);
	if (strcmp(call->method, "GET") == 0)
		api->easy_setopt(g.curl, CURLOPT_HTTPGET, 1L);
	api->easy_setopt(g.curl, CURLOPT_HTTPHEADER, headers);
	api->easy_setopt(g.curl, CURLOPT_ERRORBUFFER, call->errbuf);
	api->easy_setopt(g.curl, CURLOPT_NOSIGNAL, 1L);
	api->easy_setopt(g.curl, CURLOPT_CONNECTTIMEOUT, 10L);
	if (call->timeout_s > 0)
		api->easy_setopt(g.curl, CURLOPT_TIMEOUT, call->timeout_s);
	if (call->stall_timeout_s > 0) {
		api->easy_setopt(g.curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
		api->easy_setopt(g.curl, CURLOPT_LOW_SPEED_TIME, call->stall_timeout_s);
	}
	if (call->read_cb) {
		api->easy_setopt(g.curl, CURLOPT_POST, 1L);
		api->easy_setopt(g.curl, CURLOPT_READFUNCTION, on_read);
		api->easy_setopt(g.curl, CURLOPT_READDATA, &g);
		api->easy_setopt(g.curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)call->read_size);
	} else if (call->payload) {
		api->easy_setopt(g.curl, CURLOPT_POSTFIELDS, call->payload);
		api->easy_setopt(g.curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)call->payload_len);
	} else if (strcmp(call->method, "POST") == 0) {
		api->easy_setopt(g.curl, CURLOPT_POSTFIELDS, "");
	}
	if (call->buffer_size)
		api->easy_setopt(g.curl, CURLOPT_BUFFERSIZE,
				 (long)(call->buffer_size > CURL_MAX_READ_SIZE ? CURL_MAX_READ_SIZE : call->buffer_size));
	api->easy_setopt(g.curl, CURLOPT_WRITEFUNCTION, on_write);
	api->easy_setopt(g.curl, CURLOPT_WRITEDATA, &g);
	api->easy_setopt(g.curl, CURLOPT_HEADERFUNCTION, on_header);
	api->easy_setopt(g.curl, CURLOPT_HEADERDATA, &g);
	api->easy_setopt(g.curl, CURLOPT_NOPROGRESS, 0L);
	api->easy_setopt(g.curl, CURLOPT_XFERINFOFUNCTION, on_progress);
	api->easy_setopt(g.curl, CURLOPT_XFERINFODATA, &g);
	rc = api->easy_perform(g.curl);
	api->easy_setopt(g.curl, CURLOPT_HTTPHEADER, NULL);
	api->slist_free_all(headers);
	if (rc != CURLE_OK) {
		if (!call->errbuf[0])
			snprintf(call->errbuf, sizeof call->errbuf, "%s", api->easy_strerror(rc));
		return -1;
	}
	api->easy_getinfo(g.curl, CURLINFO_RESPONSE_CODE, &call->status);
	return 0;
}

void ax_http_curl_cleanup(ax_http *c)
{
	curl_conn *cc = c->curl;

	if (!cc)
		return;
	cc->api.easy_cleanup(cc->easy);
	dlclose(cc->lib);
	free(cc);
	c->curl = NULL;
}

_Static_assert(sizeof(((ax_http_call *)0)->errbuf) >= CURL_ERROR_SIZE, "errbuf must hold CURL_ERROR_SIZE");
