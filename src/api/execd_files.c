#include "execd_files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <curl/curl.h>

/* Big enough that loopback transfers are not bound by per-chunk overhead,
 * small enough to keep the process far below its 16 MiB budget. */
#define DEFAULT_BUFFER (256 * 1024)
#define MAX_UPLOAD_BUFFER (2 * 1024 * 1024)
/* Error answers are short JSON; anything beyond this is not worth keeping. */
#define ERROR_BODY_MAX 4096

typedef struct error_body {
	char data[ERROR_BODY_MAX + 1];
	size_t len;
} error_body;

static void error_body_add(error_body *b, const char *p, size_t n)
{
	if (n > ERROR_BODY_MAX - b->len)
		n = ERROR_BODY_MAX - b->len;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

/* execd answers errors as {"code", "message"}; its auth layer as {"error"}. */
int ax_execd_decode_error(long status, const char *body, size_t len, ax_error *err)
{
	json_t *j = json_loadb(body, len, 0, NULL);
	const char *code = json_string_value(json_object_get(j, "code"));
	const char *msg = json_string_value(json_object_get(j, "message"));
	char fallback[32];
	size_t line = 0;

	while (line < len && body[line] && body[line] != '\r' && body[line] != '\n')
		line++;
	if (code && !*code)
		code = NULL;
	if (!msg)
		msg = json_string_value(json_object_get(j, "error"));
	snprintf(fallback, sizeof fallback, "HTTP %ld", status);
	if (msg && *msg)
		ax_fail(err, AX_EXIT_FAILURE, code ? code : "HTTP", "Sandbox error [%s]: %.700s", code ? code : fallback,
			msg);
	else if (line)
		ax_fail(err, AX_EXIT_FAILURE, code ? code : "HTTP", "Sandbox error [%s]: %.*s", code ? code : fallback,
			(int)(line > 400 ? 400 : line), body);
	else
		ax_fail(err, AX_EXIT_FAILURE, code ? code : "HTTP", "Sandbox error [%s]: empty response",
			code ? code : fallback);
	json_decref(j);
	return -1;
}

/* A transport failure of a stream, named by what was moving rather than the URL. */
static int stream_failed(ax_http_call *call, const char *what, const char *path, ax_error *err)
{
	if (call->callback_failed || !call->errbuf[0])
		return -1;
	return ax_fail(err, AX_EXIT_FAILURE, "CONNECTION", "%s %s failed: %s", what, path, call->errbuf);
}

/* "/route?path=<escaped PATH><extra>"; malloc'd. */
static char *path_query(const char *route, const char *path, const char *extra, ax_error *err)
{
	char *e = ax_http_escape(path), *q = NULL;

	if (!e || asprintf(&q, "%s?path=%s%s", route, e, extra ? extra : "") < 0)
		q = NULL;
	free(e);
	if (!q)
		ax_fail(err, AX_EXIT_FAILURE, "NOMEM", "out of memory");
	return q;
}

/* What the progress callback needs to report to the caller and to abort. */
typedef struct tick_state {
	ax_http_call *call;
	const ax_execd_xfer *x;
	ax_error *err;
	bool upload;
	unsigned long long upload_size;
} tick_state;

static int on_xferinfo(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	tick_state *t = ud;
	unsigned long long done;
	long long total;

	(void)ultotal;
	if (!t->x || !t->x->tick)
		return 0;
	if (t->upload) {
		/* ulnow includes the multipart framing; report file bytes only. */
		done = (unsigned long long)ulnow < t->upload_size ? (unsigned long long)ulnow : t->upload_size;
		total = (long long)t->upload_size;
	} else {
		done = (unsigned long long)dlnow;
		total = dltotal > 0 ? (long long)dltotal : -1;
	}
	if (t->x->tick(t->x->tick_ud, done, total, t->err) < 0) {
		t->call->callback_failed = true;
		return 1;
	}
	return 0;
}

static void stream_options(ax_http_call *call, const ax_execd_xfer *x, tick_state *t)
{
	curl_easy_setopt(call->curl, CURLOPT_TIMEOUT, 0L);
	if (x && x->stall_timeout_s > 0) {
		curl_easy_setopt(call->curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
		curl_easy_setopt(call->curl, CURLOPT_LOW_SPEED_TIME, x->stall_timeout_s);
	}
	curl_easy_setopt(call->curl, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(call->curl, CURLOPT_XFERINFOFUNCTION, on_xferinfo);
	curl_easy_setopt(call->curl, CURLOPT_XFERINFODATA, t);
}

static size_t buffer_size(const ax_execd_xfer *x, size_t lo, size_t hi)
{
	size_t n = x && x->buffer_size ? x->buffer_size : DEFAULT_BUFFER;

	return n < lo ? lo : n > hi ? hi : n;
}

typedef struct download_state {
	ax_http_call *call;
	ax_execd_sink sink;
	void *sink_ud;
	ax_error *err;
	long status;
	unsigned long long bytes;
	error_body ebody;
} download_state;

static size_t on_download(char *ptr, size_t size, size_t nmemb, void *ud)
{
	download_state *s = ud;
	size_t n = size * nmemb;

	if (!s->status)
		curl_easy_getinfo(s->call->curl, CURLINFO_RESPONSE_CODE, &s->status);
	if (s->status != 200) {
		/* An error answer: keep it for the message, never hand it to the sink. */
		error_body_add(&s->ebody, ptr, n);
		return n;
	}
	if (n && s->sink(s->sink_ud, ptr, n, s->err) < 0) {
		s->call->callback_failed = true;
		return 0;
	}
	s->bytes += n;
	return n;
}

int ax_execd_download(ax_http *h, const char *path, ax_execd_sink sink, void *sink_ud, const ax_execd_xfer *x,
		      unsigned long long *bytes, ax_error *err)
{
	ax_http_call call;
	download_state s;
	tick_state t;
	char *q = path_query("/files/download", path, NULL, err);
	long status = 0;
	int rc = -1;

	if (!q)
		return -1;
	memset(&s, 0, sizeof s);
	if (ax_http_begin(h, &call, "GET", q, err) < 0)
		goto out;
	s.call = &call;
	s.sink = sink;
	s.sink_ud = sink_ud;
	s.err = err;
	t = (tick_state){ .call = &call, .x = x, .err = err };
	ax_http_add_header(&call, "Accept: application/octet-stream");
	stream_options(&call, x, &t);
	curl_easy_setopt(call.curl, CURLOPT_BUFFERSIZE, (long)buffer_size(x, 1024, CURL_MAX_READ_SIZE));
	curl_easy_setopt(call.curl, CURLOPT_WRITEFUNCTION, on_download);
	curl_easy_setopt(call.curl, CURLOPT_WRITEDATA, &s);
	if (ax_http_perform(&call, &status, err) < 0) {
		stream_failed(&call, "Download of", path, err);
		goto out;
	}
	if (status != 200) {
		ax_execd_decode_error(status, s.ebody.data, s.ebody.len, err);
		goto out;
	}
	if (bytes)
		*bytes = s.bytes;
	rc = 0;
out:
	ax_http_end(&call);
	free(q);
	return rc;
}

typedef struct upload_state {
	ax_http_call *call;
	const ax_execd_source *src;
	ax_error *err;
	unsigned long long off;
	error_body ebody;
} upload_state;

static size_t on_upload_read(char *buf, size_t size, size_t nitems, void *ud)
{
	upload_state *s = ud;
	size_t want = size * nitems;
	ssize_t n;

	if (s->off >= s->src->size)
		return 0;
	if (want > s->src->size - s->off)
		want = (size_t)(s->src->size - s->off);
	do
		n = pread(s->src->fd, buf, want, (off_t)(s->src->offset + s->off));
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		/* Short of the announced size: the file shrank or the disk failed. */
		if (n < 0)
			ax_fail(s->err, AX_EXIT_FAILURE, "IO", "cannot read local file: %s", strerror(errno));
		else
			ax_fail(s->err, AX_EXIT_FAILURE, "IO", "local file shrank while it was being uploaded");
		s->call->callback_failed = true;
		return CURL_READFUNC_ABORT;
	}
	s->off += (unsigned long long)n;
	return (size_t)n;
}

static int on_upload_seek(void *ud, curl_off_t offset, int origin)
{
	upload_state *s = ud;

	if (origin != SEEK_SET || offset < 0)
		return CURL_SEEKFUNC_CANTSEEK;
	s->off = (unsigned long long)offset;
	return CURL_SEEKFUNC_OK;
}

static size_t on_upload_answer(char *ptr, size_t size, size_t nmemb, void *ud)
{
	upload_state *s = ud;

	error_body_add(&s->ebody, ptr, size * nmemb);
	return size * nmemb;
}

static curl_mime *upload_form(CURL *curl, const char *path, int mode, const ax_execd_source *src, upload_state *s)
{
	json_t *meta = json_pack("{s:s}", "path", path);
	char *meta_text;
	const char *base = strrchr(path, '/');
	curl_mime *mime;
	curl_mimepart *part;

	if (mode)
		json_object_set_new(meta, "mode", json_integer(mode));
	meta_text = json_dumps(meta, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(meta);
	mime = meta_text ? curl_mime_init(curl) : NULL;
	if (!mime) {
		free(meta_text);
		return NULL;
	}
	/* execd reads both parts from the multipart file set, so each needs a filename. */
	part = curl_mime_addpart(mime);
	curl_mime_name(part, "metadata");
	curl_mime_filename(part, "metadata");
	curl_mime_type(part, "application/json");
	curl_mime_data(part, meta_text, CURL_ZERO_TERMINATED);
	free(meta_text);
	part = curl_mime_addpart(mime);
	curl_mime_name(part, "file");
	curl_mime_filename(part, base && base[1] ? base + 1 : "file");
	curl_mime_type(part, "application/octet-stream");
	if (src->fd >= 0)
		curl_mime_data_cb(part, (curl_off_t)src->size, on_upload_read, on_upload_seek, NULL, s);
	else
		curl_mime_data(part, src->data ? src->data : "", (size_t)src->size);
	return mime;
}

int ax_execd_upload(ax_http *h, const char *path, int mode, const ax_execd_source *src, const ax_execd_xfer *x,
		    ax_error *err)
{
	ax_http_call call;
	upload_state s;
	tick_state t;
	curl_mime *mime = NULL;
	long status = 0;
	int rc = -1;

	memset(&s, 0, sizeof s);
	if (ax_http_begin(h, &call, "POST", "/files/upload", err) < 0)
		goto out;
	s.call = &call;
	s.src = src;
	s.err = err;
	mime = upload_form(call.curl, path, mode, src, &s);
	if (!mime) {
		ax_fail(err, AX_EXIT_FAILURE, "NOMEM", "out of memory");
		goto out;
	}
	t = (tick_state){ .call = &call, .x = x, .err = err, .upload = true, .upload_size = src->size };
	/* No 100-continue round trip: execd reads the body either way. */
	ax_http_add_header(&call, "Expect:");
	ax_http_add_header(&call, "Accept: application/json");
	stream_options(&call, x, &t);
	curl_easy_setopt(call.curl, CURLOPT_UPLOAD_BUFFERSIZE, (long)buffer_size(x, 16384, MAX_UPLOAD_BUFFER));
	curl_easy_setopt(call.curl, CURLOPT_MIMEPOST, mime);
	curl_easy_setopt(call.curl, CURLOPT_WRITEFUNCTION, on_upload_answer);
	curl_easy_setopt(call.curl, CURLOPT_WRITEDATA, &s);
	if (ax_http_perform(&call, &status, err) < 0) {
		stream_failed(&call, "Upload to", path, err);
		goto out;
	}
	if (status < 200 || status > 299) {
		ax_execd_decode_error(status, s.ebody.data, s.ebody.len, err);
		goto out;
	}
	rc = 0;
out:
	ax_http_end(&call);
	curl_mime_free(mime);
	return rc;
}

/* METHOD PATH with BODY: 0 with the 2xx answer in *R (to free), or -1. */
static int call(ax_http *h, const char *method, const char *path, const json_t *body, ax_http_response *r,
		ax_error *err)
{
	if (ax_http_request(h, method, path, body, r, err) < 0)
		return -1;
	if (r->status < 200 || r->status > 299) {
		ax_execd_decode_error(r->status, r->body, r->len, err);
		ax_http_response_free(r);
		return -1;
	}
	return 0;
}

static json_t *decode_json(const char *what, const char *body, size_t len, ax_error *err)
{
	json_error_t jerr;
	json_t *doc = json_loadb(body, len, 0, &jerr);

	if (!doc)
		ax_fail(err, AX_EXIT_FAILURE, "PROTOCOL", "execd %s answered invalid JSON: %s", what, jerr.text);
	return doc;
}

int ax_execd_mkdirs(ax_http *h, const json_t *dirs, ax_error *err)
{
	ax_http_response r;

	if (call(h, "POST", "/directories", dirs, &r, err) < 0)
		return -1;
	ax_http_response_free(&r);
	return 0;
}

int ax_execd_decode_info(const char *body, size_t len, const char *path, json_t **info, ax_error *err)
{
	json_t *map = decode_json("/files/info", body, len, err), *entry;

	*info = NULL;
	if (!map)
		return -1;
	/* Keyed by the path as asked; a lone entry is it even if execd rewrote the key. */
	entry = json_object_get(map, path);
	if (!entry && json_object_size(map) == 1) {
		void *it = json_object_iter(map);

		entry = json_object_iter_value(it);
		if (!json_object_get(entry, "path") && json_is_object(entry))
			json_object_set_new(entry, "path", json_string(json_object_iter_key(it)));
	}
	if (!json_is_object(entry)) {
		json_decref(map);
		return ax_fail(err, AX_EXIT_FAILURE, "PROTOCOL", "execd's file info has no entry for %s", path);
	}
	if (!json_is_string(json_object_get(entry, "path")))
		json_object_set_new(entry, "path", json_string(path));
	*info = json_incref(entry);
	json_decref(map);
	return 0;
}

int ax_execd_info(ax_http *h, const char *path, json_t **info, ax_error *err)
{
	char *q = path_query("/files/info", path, NULL, err);
	ax_http_response r;
	int rc;

	*info = NULL;
	if (!q)
		return -1;
	rc = call(h, "GET", q, NULL, &r, err);
	free(q);
	if (rc < 0)
		return -1;
	rc = ax_execd_decode_info(r.body, r.len, path, info, err);
	ax_http_response_free(&r);
	return rc;
}

int ax_execd_decode_list(const char *body, size_t len, const char *path, json_t **entries, ax_error *err)
{
	*entries = decode_json("/directories/list", body, len, err);
	if (!*entries)
		return -1;
	if (!json_is_array(*entries)) {
		json_decref(*entries);
		*entries = NULL;
		return ax_fail(err, AX_EXIT_FAILURE, "PROTOCOL", "execd's listing of %s is not an array", path);
	}
	return 0;
}

int ax_execd_list(ax_http *h, const char *path, int depth, json_t **entries, ax_error *err)
{
	char extra[32], *q;
	ax_http_response r;
	int rc;

	*entries = NULL;
	snprintf(extra, sizeof extra, "&depth=%d", depth);
	q = path_query("/directories/list", path, extra, err);
	if (!q)
		return -1;
	rc = call(h, "GET", q, NULL, &r, err);
	free(q);
	if (rc < 0)
		return -1;
	rc = ax_execd_decode_list(r.body, r.len, path, entries, err);
	ax_http_response_free(&r);
	return rc;
}
