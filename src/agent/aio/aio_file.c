/* POST /v1/file/read and POST /v1/file/write.
 *
 * Read is text only, as in AIO: a file that is not UTF-8 is a decode_error
 * and binary content goes through GET /v1/file/download. Write takes utf-8
 * text, base64 (any bytes) or raw (one byte per code point up to U+00FF). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/aio/aio_common.h"
#include "lib/fs.h"

/* AIO's buffered text limit; larger files are for download. */
#define READ_MAX ((size_t)16 << 20)
#define WRITE_OP "write"
#define READ_OP "read"

/* Read FD (a regular file) whole, refusing more than READ_MAX bytes. The
 * size from fstat is only a hint: files in /proc say 0. */
static int slurp(int fd, char **data, size_t *len)
{
	size_t cap = 64 << 10, n = 0;
	char *buf = malloc(cap), *grown;
	ssize_t got;

	if (!buf)
		return -1;
	for (;;) {
		if (n == cap) {
			cap *= 2;
			grown = realloc(buf, cap);
			if (!grown) {
				free(buf);
				errno = ENOMEM;
				return -1;
			}
			buf = grown;
		}
		got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			free(buf);
			return -1;
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (n > READ_MAX) {
			free(buf);
			errno = EFBIG;
			return -1;
		}
	}
	*data = buf;
	*len = n;
	return 0;
}

/* Python's lines[start:end] on readlines() output: 0-based, END exclusive,
 * negative counts from the end, out-of-range clamps. */
static void slice_bounds(long long n, const long long *start, const long long *end, long long *lo,
			 long long *hi)
{
	*lo = start ? *start : 0;
	*hi = end ? *end : n;
	if (*lo < 0)
		*lo = *lo + n < 0 ? 0 : *lo + n;
	if (*hi < 0)
		*hi = *hi + n < 0 ? 0 : *hi + n;
	if (*lo > n)
		*lo = n;
	if (*hi > n)
		*hi = n;
	if (*hi < *lo)
		*hi = *lo;
}

/* Narrow [*off, *off + *len) of DATA to lines LO..HI (each line keeps its '\n'). */
static void select_lines(const char *data, size_t size, const long long *start, const long long *end,
			 size_t *off, size_t *len)
{
	long long lines = 0, lo, hi, line = 0;
	size_t i, from = size, to = size;

	for (i = 0; i < size; i++)
		if (data[i] == '\n')
			lines++;
	if (size && data[size - 1] != '\n')
		lines++;
	slice_bounds(lines, start, end, &lo, &hi);
	if (lo == 0)
		from = 0;
	if (hi == 0)
		to = 0;
	for (i = 0; i < size && (from == size || to == size); i++) {
		if (data[i] != '\n')
			continue;
		line++;
		if (line == lo)
			from = i + 1;
		if (line == hi)
			to = i + 1;
	}
	if (to < from)
		to = from;
	*off = from;
	*len = to - from;
}

enum MHD_Result aio_file_read(struct ag_req *req)
{
	struct aio_args a;
	long long start, end;
	const char *file;
	bool has_start, has_end;
	char *data = NULL;
	size_t len = 0, off, n;
	struct stat st;
	enum MHD_Result rc;
	int fd, e;

	aio_args_body(req, &a);
	file = aio_arg_str(&a, "file", true);
	has_start = aio_arg_int(&a, "start_line", &start);
	has_end = aio_arg_int(&a, "end_line", &end);
	aio_arg_bool(&a, "sudo", false);	/* the agent already runs as the sandbox's user */
	if (!aio_args_ok(&a)) {
		rc = aio_reply_invalid(req, &a);
		aio_args_free(&a);
		return rc;
	}
	if (!aio_path_ok(file)) {
		rc = aio_reply_file_error(req, file, READ_OP, "invalid_path", 0, "Path must be absolute: %s", file);
		goto out;
	}
	/* O_NONBLOCK: opening a FIFO must not hang the request. */
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		rc = aio_reply_errno(req, file, READ_OP, errno);
		goto out;
	}
	e = fstat(fd, &st) < 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
	if (e || !S_ISREG(st.st_mode)) {
		close(fd);
		if (e)
			rc = aio_reply_errno(req, file, READ_OP, e);
		else
			rc = aio_reply_file_error(req, file, READ_OP, "invalid_target", 0, "Not a regular file: %s", file);
		goto out;
	}
	e = slurp(fd, &data, &len) < 0 ? errno : 0;
	close(fd);
	if (e == EFBIG) {
		rc = aio_reply_file_error(req, file, READ_OP, "invalid_target", 0,
					  "file exceeds the 16 MiB buffered text limit: %s; use /v1/file/download", file);
		goto out;
	}
	if (e) {
		rc = aio_reply_errno(req, file, READ_OP, e);
		goto out;
	}
	if (!aio_utf8_valid(data, len)) {
		rc = aio_reply_file_error(req, file, READ_OP, "decode_error", 0,
					  "File is not valid UTF-8 text: %s; use /v1/file/download for binary files",
					  file);
		goto out;
	}
	off = 0;
	n = len;
	if (has_start || has_end)
		select_lines(data, len, has_start ? &start : NULL, has_end ? &end : NULL, &off, &n);
	rc = ag_reply_json(req, MHD_HTTP_OK,
			   ag_envelope("File read successfully",
				       json_pack("{s:o,s:o}", "content", json_stringn_nocheck(data + off, n),
						 "file", ag_json_text(file))));
out:
	free(data);
	aio_args_free(&a);
	return rc;
}

static int b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

/* Standard or URL-safe base64; whitespace is skipped and padding may be
 * left out. Decodes into OUT (at least LEN * 3 / 4 + 3 bytes). -1 if bad. */
static long long b64_decode(const char *in, size_t len, unsigned char *out)
{
	unsigned acc = 0;
	size_t i, bits = 0, pad = 0;
	long long n = 0;
	int v;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)in[i];

		if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
			continue;
		if (c == '=') {
			pad++;
			continue;
		}
		v = b64_value(c);
		if (v < 0 || pad)
			return -1;
		acc = (acc << 6 | (unsigned)v) & 0xffffff;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (unsigned char)(acc >> bits);
		}
	}
	/* A lone sixth of a byte left over means a truncated group. */
	if (bits >= 6 || pad > 2)
		return -1;
	return n;
}

/* Code points up to U+00FF, one byte each (Python's latin-1). -1 if one is larger. */
static long long raw_decode(const char *in, size_t len, unsigned char *out)
{
	const unsigned char *p = (const unsigned char *)in;
	long long n = 0;
	size_t i = 0;

	while (i < len) {
		if (p[i] < 0x80) {
			out[n++] = p[i++];
		} else if ((p[i] == 0xc2 || p[i] == 0xc3) && i + 1 < len) {
			out[n++] = (unsigned char)((p[i] & 0x03) << 6 | (p[i + 1] & 0x3f));
			i += 2;
		} else {
			return -1;
		}
	}
	return n;
}

/* The bytes to write, in a malloc'd buffer; -1 with *WHY set when CONTENT
 * does not decode. */
static long long encode_content(const char *content, size_t len, const char *encoding, bool lead, bool trail,
				unsigned char **out, const char **why)
{
	unsigned char *buf = malloc(len + 3);
	long long n = 0;

	*out = buf;
	if (!buf) {
		*why = "out of memory";
		return -1;
	}
	if (strcmp(encoding, "base64") == 0) {
		n = b64_decode(content, len, buf);
		*why = "Invalid base64 content";
	} else if (strcmp(encoding, "raw") == 0) {
		n = raw_decode(content, len, buf);
		*why = "raw content holds a character above U+00FF";
	} else {
		/* Newlines are a text-mode nicety only, as in AIO. */
		if (lead)
			buf[n++] = '\n';
		memcpy(buf + n, content, len);
		n += (long long)len;
		if (trail)
			buf[n++] = '\n';
	}
	return n;
}

enum MHD_Result aio_file_write(struct ag_req *req)
{
	struct aio_args a;
	const char *file, *encoding, *why = NULL;
	json_t *content;
	bool append, lead, trail;
	unsigned char *bytes = NULL;
	long long n;
	enum MHD_Result rc;
	int fd;

	aio_args_body(req, &a);
	file = aio_arg_str(&a, "file", true);
	/* Content may hold NUL (aio_arg_str refuses it): check it by hand. */
	content = json_is_object(a.body) ? json_object_get(a.body, "content") : NULL;
	if (!content || json_is_null(content))
		aio_args_invalid(&a, "content", "missing", "Field required");
	else if (!json_is_string(content))
		aio_args_invalid(&a, "content", "string_type", "Input should be a valid string");
	encoding = aio_arg_str(&a, "encoding", false);
	if (!encoding)
		encoding = "utf-8";
	if (strcmp(encoding, "utf-8") != 0 && strcmp(encoding, "base64") != 0 && strcmp(encoding, "raw") != 0)
		aio_args_invalid(&a, "encoding", "enum", "Input should be 'utf-8', 'base64' or 'raw'");
	append = aio_arg_bool(&a, "append", false);
	lead = aio_arg_bool(&a, "leading_newline", false);
	trail = aio_arg_bool(&a, "trailing_newline", false);
	aio_arg_bool(&a, "sudo", false);
	if (!aio_args_ok(&a)) {
		rc = aio_reply_invalid(req, &a);
		aio_args_free(&a);
		return rc;
	}
	if (!aio_path_ok(file)) {
		rc = aio_reply_file_error(req, file, WRITE_OP, "invalid_path", 0, "Path must be absolute: %s", file);
		goto out;
	}
	n = encode_content(json_string_value(content), json_string_length(content), encoding, lead, trail, &bytes,
			   &why);
	if (n < 0) {
		rc = aio_reply_file_error(req, file, WRITE_OP, "decode_error", 0, "%s", why);
		goto out;
	}
	/* A write creates missing parents; the file keeps its inode and mode. */
	if (aio_mkdir_parents(file) < 0) {
		rc = aio_reply_errno(req, file, WRITE_OP, errno);
		goto out;
	}
	fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK | (append ? O_APPEND : O_TRUNC), 0666);
	if (fd < 0 || ax_write_all(fd, bytes, (size_t)n) < 0) {
		rc = aio_reply_errno(req, file, WRITE_OP, errno);
		if (fd >= 0)
			close(fd);
		goto out;
	}
	if (close(fd) < 0) {
		rc = aio_reply_errno(req, file, WRITE_OP, errno);
		goto out;
	}
	rc = ag_reply_json(req, MHD_HTTP_OK,
			   ag_envelope("File written successfully",
				       json_pack("{s:o,s:I}", "file", ag_json_text(file), "bytes_written", (json_int_t)n)));
out:
	free(bytes);
	aio_args_free(&a);
	return rc;
}
