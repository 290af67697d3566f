#include "api/execd_files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
		ax_fail(err, AX_CODE_HTTP, "Sandbox error [%s]: %.700s", code ? code : fallback,
			msg);
	else if (line)
		ax_fail(err, AX_CODE_HTTP, "Sandbox error [%s]: %.*s", code ? code : fallback,
			(int)(line > 400 ? 400 : line), body);
	else
		ax_fail(err, AX_CODE_HTTP, "Sandbox error [%s]: empty response",
			code ? code : fallback);
	ax_error_peer_code(err, code);
	json_decref(j);
	return -1;
}

/* A transport failure of a stream, named by what was moving rather than the URL. */
static int stream_failed(ax_http_call *call, const char *what, const char *path, ax_error *err)
{
	if (call->callback_failed || !call->errbuf[0])
		return -1;
	return ax_fail(err, AX_CODE_CONNECTION, "%s %s failed: %s", what, path, call->errbuf);
}

/* "/route?path=<escaped PATH><extra>"; malloc'd. */
static char *path_query(const char *route, const char *path, const char *extra, ax_error *err)
{
	char *e = ax_http_escape(path), *q = NULL;

	if (!e || asprintf(&q, "%s?path=%s%s", route, e, extra ? extra : "") < 0)
		q = NULL;
	free(e);
	if (!q)
		ax_fail(err, AX_CODE_NOMEM, "out of memory");
	return q;
}

/* What the progress callback needs to report to the caller and to abort. */
typedef struct tick_state {
	ax_http_call *call;
	const ax_execd_xfer *x;
	ax_error *err;
	bool upload;
	unsigned long long upload_size;
	unsigned long long upload_framing; /* bytes sent before the file's first byte */
} tick_state;

static int on_xferinfo(void *ud, unsigned long long dlnow, long long dltotal, unsigned long long ulnow)
{
	tick_state *t = ud;
	unsigned long long done;
	long long total;

	if (!t->x || !t->x->tick)
		return 0;
	if (t->upload) {
		/* ulnow includes the multipart framing; report file bytes only. */
		done = ulnow > t->upload_framing ? ulnow - t->upload_framing : 0;
		if (done > t->upload_size)
			done = t->upload_size;
		total = (long long)t->upload_size;
	} else {
		done = dlnow;
		total = dltotal > 0 ? dltotal : -1;
	}
	if (t->x->tick(t->x->tick_ud, done, total, t->err) < 0) {
		t->call->callback_failed = true;
		return 1;
	}
	return 0;
}

static void stream_options(ax_http_call *call, const ax_execd_xfer *x, tick_state *t)
{
	call->timeout_s = 0;
	if (x && x->stall_timeout_s > 0)
		call->stall_timeout_s = x->stall_timeout_s;
	call->progress_cb = on_xferinfo;
	call->progress_data = t;
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
	const ax_execd_file_sink *file_sink;
} download_state;

static int flush_file_sink(void *ud)
{
	download_state *s = ud;

	return s->file_sink->flush(s->file_sink->ud, s->err);
}

static size_t on_download(char *ptr, size_t n, void *ud)
{
	download_state *s = ud;

	if (!s->status)
		s->status = s->call->status;
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
	call.buffer_size = buffer_size(x, 1024, MAX_UPLOAD_BUFFER);
	call.write_cb = on_download;
	call.write_data = &s;
	if (x && x->file_sink) {
		call.sink_fd = x->file_sink->fd;
		call.before_sink = flush_file_sink;
		call.before_sink_data = &s;
		s.file_sink = x->file_sink;
	}
	if (ax_http_perform(&call, &status, err) < 0) {
		if (call.sink_errno)
			ax_fail(err, AX_CODE_IO, "Cannot write %s: %s", x->file_sink->name,
				strerror(call.sink_errno));
		else
			stream_failed(&call, "Download of", path, err);
		goto out;
	}
	if (status != 200) {
		ax_execd_decode_error(status, s.ebody.data, s.ebody.len, err);
		goto out;
	}
	if (bytes)
		*bytes = s.bytes + call.sunk;
	rc = 0;
out:
	ax_http_end(&call);
	free(q);
	return rc;
}

/* The multipart/form-data body, streamed: HEAD (the metadata part and the
 * file part's headers), the file's bytes, then TAIL. */
typedef struct upload_state {
	ax_http_call *call;
	const ax_execd_source *src;
	ax_error *err;
	char *head, *tail;
	size_t head_len, tail_len;
	unsigned long long off; /* into the whole body */
	error_body ebody;
} upload_state;

/* Copy what of [START, START+LEN) lies at or after S->off into BUF. */
static size_t take(upload_state *s, char *buf, size_t want, unsigned long long start, const char *p, size_t len)
{
	size_t skip, n;

	if (s->off < start || s->off >= start + len)
		return 0;
	skip = (size_t)(s->off - start);
	n = len - skip < want ? len - skip : want;
	memcpy(buf, p + skip, n);
	s->off += n;
	return n;
}

static long long on_upload_read(char *buf, size_t want, void *ud)
{
	upload_state *s = ud;
	unsigned long long file_end = s->head_len + s->src->size;
	size_t got;
	ssize_t n;

	if (s->off < s->head_len)
		return (long long)take(s, buf, want, 0, s->head, s->head_len);
	if (s->off >= file_end)
		return (long long)take(s, buf, want, file_end, s->tail, s->tail_len);
	if (want > file_end - s->off)
		want = (size_t)(file_end - s->off);
	if (s->src->fd < 0) {
		got = (size_t)(s->off - s->head_len);
		memcpy(buf, (const char *)s->src->data + got, want);
		s->off += want;
		return (long long)want;
	}
	do
		n = pread(s->src->fd, buf, want, (off_t)(s->src->offset + (s->off - s->head_len)));
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		/* Short of the announced size: the file shrank or the disk failed. */
		if (n < 0)
			ax_fail(s->err, AX_CODE_IO, "cannot read local file: %s", strerror(errno));
		else
			ax_fail(s->err, AX_CODE_IO, "local file shrank while it was being uploaded");
		s->call->callback_failed = true;
		return -1;
	}
	s->off += (unsigned long long)n;
	return n;
}

static size_t on_upload_answer(char *ptr, size_t n, void *ud)
{
	upload_state *s = ud;

	error_body_add(&s->ebody, ptr, n);
	return n;
}

/* A filename for Content-Disposition, quoted as browsers do (HTML5): '"',
 * CR and LF percent-encoded. */
static char *disposition_name(const char *name)
{
	char *out = malloc(3 * strlen(name) + 1), *o = out;

	if (!out)
		return NULL;
	for (; *name; name++) {
		if (*name == '"' || *name == '\r' || *name == '\n')
			o += sprintf(o, "%%%02X", (unsigned char)*name);
		else
			*o++ = *name;
	}
	*o = '\0';
	return out;
}

static int upload_form(const char *path, int mode, upload_state *s)
{
	json_t *meta = json_pack("{s:s}", "path", path);
	const char *base = strrchr(path, '/');
	char boundary[40], *meta_text, *fname;
	unsigned char rnd[12];
	int n;

	if (mode)
		json_object_set_new(meta, "mode", json_integer(mode));
	meta_text = json_dumps(meta, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(meta);
	fname = disposition_name(base && base[1] ? base + 1 : "file");
	if (getentropy(rnd, sizeof rnd) < 0)
		memset(rnd, 0x5a, sizeof rnd);
	n = snprintf(boundary, sizeof boundary, "------------------------");
	for (size_t i = 0; i < sizeof rnd / 2; i++)
		n += snprintf(boundary + n, sizeof boundary - (size_t)n, "%02x", rnd[i]);
	/* execd reads both parts from the multipart file set, so each needs a filename. */
	if (!meta_text || !fname ||
	    asprintf(&s->head,
		     "--%s\r\nContent-Disposition: form-data; name=\"metadata\"; filename=\"metadata\"\r\n"
		     "Content-Type: application/json\r\n\r\n%s\r\n"
		     "--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"%s\"\r\n"
		     "Content-Type: application/octet-stream\r\n\r\n",
		     boundary, meta_text, boundary, fname) < 0)
		s->head = NULL;
	if (s->head && asprintf(&s->tail, "\r\n--%s--\r\n", boundary) < 0)
		s->tail = NULL;
	free(meta_text);
	free(fname);
	if (!s->head || !s->tail)
		return -1;
	s->head_len = strlen(s->head);
	s->tail_len = strlen(s->tail);
	{
		char line[96];

		snprintf(line, sizeof line, "Content-Type: multipart/form-data; boundary=%s", boundary);
		ax_http_add_header(s->call, line);
	}
	return 0;
}

int ax_execd_upload(ax_http *h, const char *path, int mode, const ax_execd_source *src, const ax_execd_xfer *x,
		    ax_error *err)
{
	ax_http_call call;
	upload_state s;
	tick_state t;
	long status = 0;
	int rc = -1;

	memset(&s, 0, sizeof s);
	if (ax_http_begin(h, &call, "POST", "/files/upload", err) < 0)
		goto out;
	s.call = &call;
	s.src = src;
	s.err = err;
	if (upload_form(path, mode, &s) < 0) {
		ax_fail(err, AX_CODE_NOMEM, "out of memory");
		goto out;
	}
	t = (tick_state){ .call = &call, .x = x, .err = err, .upload = true, .upload_size = src->size };
	ax_http_add_header(&call, "Accept: application/json");
	stream_options(&call, x, &t);
	call.buffer_size = buffer_size(x, 16384, MAX_UPLOAD_BUFFER);
	call.read_cb = on_upload_read;
	call.read_data = &s;
	call.read_size = s.head_len + src->size + s.tail_len;
	if (src->fd >= 0) {
		/* The same bytes, for the client's sendfile path. */
		call.head = s.head;
		call.head_len = s.head_len;
		call.file_fd = src->fd;
		call.file_offset = src->offset;
		call.file_len = src->size;
		call.tail = s.tail;
		call.tail_len = s.tail_len;
	}
	/* The progress figure counts file bytes, not the multipart framing. */
	t.upload_framing = s.head_len;
	call.write_cb = on_upload_answer;
	call.write_data = &s;
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
	free(s.head);
	free(s.tail);
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
		ax_fail(err, AX_CODE_PROTOCOL, "execd %s answered invalid JSON: %s", what, jerr.text);
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
		return ax_fail(err, AX_CODE_PROTOCOL, "execd's file info has no entry for %s", path);
	}
	if (!json_is_string(json_object_get(entry, "path")))
		json_object_set_new(entry, "path", json_string(path));
	*info = json_incref(entry);
	json_decref(map);
	return 0;
}

/* GET ROUTE?path=PATH<EXTRA> and decode the answer with DECODE into *OUT. */
static int get_decoded(ax_http *h, const char *route, const char *path, const char *extra,
		       int (*decode)(const char *, size_t, const char *, json_t **, ax_error *), json_t **out,
		       ax_error *err)
{
	char *q = path_query(route, path, extra, err);
	ax_http_response r;
	int rc;

	*out = NULL;
	if (!q)
		return -1;
	rc = call(h, "GET", q, NULL, &r, err);
	free(q);
	if (rc < 0)
		return -1;
	rc = decode(r.body, r.len, path, out, err);
	ax_http_response_free(&r);
	return rc;
}

int ax_execd_info(ax_http *h, const char *path, json_t **info, ax_error *err)
{
	return get_decoded(h, "/files/info", path, NULL, ax_execd_decode_info, info, err);
}

int ax_execd_decode_list(const char *body, size_t len, const char *path, json_t **entries, ax_error *err)
{
	*entries = decode_json("/directories/list", body, len, err);
	if (!*entries)
		return -1;
	if (!json_is_array(*entries)) {
		json_decref(*entries);
		*entries = NULL;
		return ax_fail(err, AX_CODE_PROTOCOL, "execd's listing of %s is not an array", path);
	}
	return 0;
}

int ax_execd_list(ax_http *h, const char *path, int depth, json_t **entries, ax_error *err)
{
	char extra[32];

	snprintf(extra, sizeof extra, "&depth=%d", depth);
	return get_decoded(h, "/directories/list", path, extra, ax_execd_decode_list, entries, err);
}
