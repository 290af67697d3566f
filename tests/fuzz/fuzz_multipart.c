/*
 * libFuzzer target for the agent's multipart parser (src/agent/upload/upload_sink.c
 * driving libmicrohttpd's form parser, as both upload routes do). The body
 * is fed whole and again in chunks of varying sizes: both must end the same
 * way and, when they succeed, hand over the same parts with contiguous
 * offsets. A second mode builds a well-formed form from the input and checks
 * that exactly its parts come back.
 *
 * MHD_create_post_processor reads the Content-Type through
 * MHD_lookup_connection_value_n; this target links MHD's parser objects
 * (from libmicrohttpd.a) without its connection code and answers that lookup
 * itself from a fake connection.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "agent/upload/upload_sink.h"

/* What MHD's parser needs from the daemon and connection code. */
struct MHD_Connection {
	const char *content_type;
};

static void fuzz_panic(void *cls, const char *file, unsigned int line, const char *reason)
{
	(void)cls, (void)file, (void)line, (void)reason;
	abort();
}

MHD_PanicCallback mhd_panic = fuzz_panic;
void *mhd_panic_cls;

enum MHD_Result MHD_lookup_connection_value_n(struct MHD_Connection *connection, enum MHD_ValueKind kind,
					       const char *key, size_t key_size, const char **value_ptr,
					       size_t *value_size_ptr);

enum MHD_Result MHD_lookup_connection_value_n(struct MHD_Connection *connection, enum MHD_ValueKind kind,
					       const char *key, size_t key_size, const char **value_ptr,
					       size_t *value_size_ptr)
{
	if (!(kind & MHD_HEADER_KIND) || !connection->content_type || key_size != strlen(MHD_HTTP_HEADER_CONTENT_TYPE) ||
	    strncasecmp(key, MHD_HTTP_HEADER_CONTENT_TYPE, key_size) != 0)
		return MHD_NO;
	if (value_ptr)
		*value_ptr = connection->content_type;
	if (value_size_ptr)
		*value_size_ptr = strlen(connection->content_type);
	return MHD_YES;
}

/* The parts as text: "\n[key|filename|type|encoding]" then the bytes. A new
 * part starts when that header changes, or at offset 0 after bytes. */
struct rec {
	struct upload_sink sink;   /* first, as the routes have it */
	FILE *text;
	char *buf;
	size_t len;
	char header[9000];          /* of the current part */
	uint64_t bytes;            /* of the current part */
	bool started;
};

static enum MHD_Result on_part(void *cls, enum MHD_ValueKind kind, const char *key, const char *filename,
			       const char *content_type, const char *transfer_encoding, const char *data,
			       uint64_t off, size_t size)
{
	struct rec *r = cls;
	char header[sizeof r->header];

	(void)kind;
	/* A part without a Content-Disposition name comes with KEY NULL. */
	if (!key)
		key = "(null)";
	/* A new part, as the upload routes tell it: a new key, or offset 0
	 * after bytes. Within a part, offsets are contiguous. */
	snprintf(header, sizeof header, "\n[%s|%s|%s|%s]", key, filename ? filename : "-",
		 content_type ? content_type : "-", transfer_encoding ? transfer_encoding : "-");
	if (!r->started || strcmp(header, r->header) != 0 || (off == 0 && r->bytes > 0)) {
		fputs(header, r->text);
		snprintf(r->header, sizeof r->header, "%s", header);
		r->bytes = 0;
		r->started = true;
	}
	if (off != r->bytes)
		abort();
	fwrite(data, 1, size, r->text);
	r->bytes += size;
	return MHD_YES;
}

static void rec_free(void *state)
{
	struct rec *r = state;

	upload_sink_release(&r->sink);
	if (r->text)
		fclose(r->text);
	free(r->buf);
	free(r);
}

/* Parse BODY under CONTENT_TYPE in chunks from SIZES (NULL: whole); the
 * parts' text to *TEXT (malloc'd). 0 when the form was well formed. */
static int parse(const char *content_type, const uint8_t *body, size_t len, const uint8_t *sizes, size_t nsizes,
		 char **text, size_t *text_len)
{
	struct MHD_Connection conn = { content_type };
	struct ag_req req;
	struct rec *r;
	size_t off = 0, k = 0;
	int rc = 0;

	memset(&req, 0, sizeof req);
	req.conn = &conn;
	r = upload_sink_state(&req, sizeof *r, rec_free, on_part, 1024);
	if (!r)
		abort();
	r->text = open_memstream(&r->buf, &r->len);
	if (!r->text)
		abort();
	if (!r->sink.pp)
		rc = -1;
	while (rc == 0 && off < len) {
		size_t n = sizes && nsizes ? (size_t)sizes[k++ % nsizes] % 97 + 1 : len;

		if (n > len - off)
			n = len - off;
		rc = upload_sink_feed(&r->sink, (const char *)body + off, n);
		off += n;
	}
	if (upload_sink_end_form(&r->sink) < 0)
		rc = -1;
	fclose(r->text);
	r->text = NULL;
	*text = r->buf;
	*text_len = r->len;
	r->buf = NULL;
	req.free_state(req.state);
	return rc;
}

/* Whole and chunked parses of the same body agree. */
static void check_chunking(const char *content_type, const uint8_t *body, size_t len, const uint8_t *sizes,
			   size_t nsizes)
{
	char *a, *b;
	size_t alen, blen;
	int ra = parse(content_type, body, len, NULL, 0, &a, &alen);
	int rb = parse(content_type, body, len, sizes, nsizes, &b, &blen);

	if (ra != rb || (ra == 0 && (alen != blen || memcmp(a, b, alen) != 0)))
		abort();
	/* Only multipart/form-data is parsed at all. */
	if (strncmp(content_type, "multipart/form-data", 19) != 0 && (ra == 0 || alen))
		abort();
	free(a);
	free(b);
}

static bool has_any(const char *p, size_t n, const char *set)
{
	for (; *set; set++)
		if (memchr(p, *set, n))
			return true;
	return false;
}

/* Build a well-formed form from DATA: parts separated by 0xff bytes, each
 * "name\0filename\0content", and check that its parts come back. */
static void check_roundtrip(const uint8_t *data, size_t size, const uint8_t *sizes, size_t nsizes)
{
	static const char boundary[] = "fuzzB0undary7MA4YWxkTrZu0gW";
	char *body = NULL, *want = NULL, *got;
	size_t body_len = 0, want_len = 0, got_len;
	FILE *b = open_memstream(&body, &body_len), *w = open_memstream(&want, &want_len);
	size_t i = 0;
	char header[9000], prev[9000] = "";
	bool prev_empty = false;
	int rc;

	if (!b || !w)
		abort();
	while (i < size) {
		const uint8_t *end = memchr(data + i, 0xff, size - i);
		size_t n = end ? (size_t)(end - (data + i)) : size - i;
		const char *part = (const char *)data + i, *name, *file, *content;
		size_t name_len, file_len, content_len;

		i += n + 1;
		name = part;
		name_len = strnlen(name, n);
		file = name_len < n ? name + name_len + 1 : name + n;
		file_len = strnlen(file, n - (size_t)(file - part));
		content = file + file_len < part + n ? file + file_len + 1 : part + n;
		content_len = n - (size_t)(content - part);
		/* Names MHD can carry: no quote, CR, LF or ';', not empty. */
		if (!name_len || has_any(name, name_len, "\"\r\n;") || has_any(file, file_len, "\"\r\n;") ||
		    memmem(content, content_len, boundary, sizeof boundary - 1)) {
			fclose(b);
			fclose(w);
			goto skip;
		}
		fprintf(b, "--%s\r\nContent-Disposition: form-data; name=\"%.*s\"", boundary, (int)name_len, name);
		if (file_len)
			fprintf(b, "; filename=\"%.*s\"", (int)file_len, file);
		fprintf(b, "\r\nContent-Type: application/octet-stream\r\n\r\n");
		fwrite(content, 1, content_len, b);
		fprintf(b, "\r\n");
		/* An empty part is reported too (one call with no bytes), but MHD
		 * marks no boundary: after an empty part, a part with the same
		 * name and filename reads as its continuation (the upload routes
		 * see the same). */
		snprintf(header, sizeof header, "\n[%.*s|%.*s|application/octet-stream|-]", (int)name_len, name,
			 (int)(file_len ? file_len : 1), file_len ? file : "-");
		if (!prev_empty || strcmp(header, prev) != 0)
			fputs(header, w);
		fwrite(content, 1, content_len, w);
		prev_empty = !content_len;
		memcpy(prev, header, sizeof prev);
	}
	fprintf(b, "--%s--\r\n", boundary);
	fclose(b);
	fclose(w);
	{
		char type[128];

		snprintf(type, sizeof type, "multipart/form-data; boundary=%s", boundary);
		rc = parse(type, (const uint8_t *)body, body_len, sizes, nsizes, &got, &got_len);
	}
	if (rc != 0 || got_len != want_len || memcmp(got, want, want_len) != 0) {
		fprintf(stderr, "rc %d\nwant %zu:\n%.*s\ngot %zu:\n%.*s\n", rc, want_len, (int)want_len, want, got_len,
			(int)got_len, got);
		abort();
	}
	free(got);
skip:
	free(body);
	free(want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const types[] = {
		"multipart/form-data; boundary=XyZ",
		"multipart/form-data; boundary=\"a b\"",
		"application/x-www-form-urlencoded",
	};
	const uint8_t *sizes;
	size_t nsizes;

	if (size < 2)
		return 0;
	nsizes = data[1] % 8 + 1;
	if (size < 2 + nsizes)
		return 0;
	sizes = data + 2;
	if (data[0] % 4 < 3)
		check_chunking(types[data[0] % 4], data + 2 + nsizes, size - 2 - nsizes, sizes, nsizes);
	else
		check_roundtrip(data + 2 + nsizes, size - 2 - nsizes, sizes, nsizes);
	return 0;
}
