#include "agent/execd/execd_download.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/execd/execd_http.h"
#include "agent/execd/execd_range.h"

#define BLOCK_SIZE (64 * 1024)

/* Whether C may stay as it is in a percent-encoded file name (Go's
 * url.PathEscape keeps these). */
static int keep(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("-._~!$&'()*+,;=:@", c));
}

/* attachment; filename="NAME", plus filename*=UTF-8''... (RFC 5987) when
 * NAME is not plain ASCII. Malloc'd. */
static char *disposition(const char *name)
{
	size_t n = strlen(name), i, used = 0;
	int plain = 1;
	char *enc, *out = NULL;

	for (i = 0; i < n; i++)
		if ((unsigned char)name[i] >= 0x7f || (unsigned char)name[i] < 0x20)
			plain = 0;
	enc = malloc(3 * n + 1);
	if (!enc)
		return NULL;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		if (plain && c != '"' && c != '\\')
			enc[used++] = (char)c;
		else if (plain)
			used += (size_t)sprintf(enc + used, "\\%c", c);
		else if (keep(c))
			enc[used++] = (char)c;
		else
			used += (size_t)sprintf(enc + used, "%%%02X", c);
	}
	enc[used] = '\0';
	if (plain ? asprintf(&out, "attachment; filename=\"%s\"", enc) < 0
		  : asprintf(&out, "attachment; filename=\"%s\"; filename*=UTF-8''%s", enc, enc) < 0)
		out = NULL;
	free(enc);
	return out;
}

/* For files whose size stat does not tell (/proc, pipes, devices): read to EOF. */
static ssize_t read_fd(void *cls, uint64_t pos, char *buf, size_t max)
{
	int fd = *(int *)cls;
	ssize_t n;

	do
		n = read(fd, buf, max);
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return MHD_CONTENT_READER_END_OF_STREAM;
	return n < 0 ? MHD_CONTENT_READER_END_WITH_ERROR : n;
}

static void close_fd(void *cls)
{
	int *fd = cls;

	close(*fd);
	free(fd);
}

static struct MHD_Response *stream_response(int fd)
{
	int *cls = malloc(sizeof *cls);
	struct MHD_Response *resp;

	if (!cls)
		return NULL;
	*cls = fd;
	resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, BLOCK_SIZE, read_fd, cls, close_fd);
	if (!resp)
		free(cls);
	return resp;
}

static enum MHD_Result reply_unsatisfiable(struct ag_req *req, uint64_t size)
{
	char range[48];
	json_t *o = json_pack("{s:s,s:s}", "code", AG_E_UNKNOWN, "message", "requested range not satisfiable");
	struct MHD_Response *resp = ag_json_response(o);

	if (!resp)
		return MHD_NO;
	snprintf(range, sizeof range, "bytes */%" PRIu64, size);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_RANGE, range);
	return ag_reply_queue(req, MHD_HTTP_RANGE_NOT_SATISFIABLE, resp);
}

/* FD is a regular file of SIZE bytes (or something to read to EOF when
 * SIZED is 0). FD is the response's from here on. */
static enum MHD_Result send_file(struct ag_req *req, int fd, uint64_t size, int sized, const char *abs)
{
	const char *range = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_RANGE);
	const char *base = strrchr(abs, '/');
	uint64_t start = 0, len = size;
	unsigned status = MHD_HTTP_OK;
	struct MHD_Response *resp;
	char *cd, crange[80];

	if (range && (sized || size == 0)) {
		int rc = ag_range_parse(range, size, &start, &len);

		if (rc <= 0) {
			close(fd);
			return reply_unsatisfiable(req, size);
		}
		status = MHD_HTTP_PARTIAL_CONTENT;
	}
	if (sized)
		resp = MHD_create_response_from_fd_at_offset64(len, fd, start);
	else
		resp = stream_response(fd);
	if (!resp) {
		close(fd);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/octet-stream");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_ACCEPT_RANGES, "bytes");
	cd = disposition(base ? base + 1 : abs);
	if (cd)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_DISPOSITION, cd);
	free(cd);
	if (status == MHD_HTTP_PARTIAL_CONTENT) {
		snprintf(crange, sizeof crange, "bytes %" PRIu64 "-%" PRIu64 "/%" PRIu64, start, start + len - 1, size);
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_RANGE, crange);
	}
	return ag_reply_queue(req, status, resp);
}

enum MHD_Result ag_execd_download(struct ag_req *req)
{
	int bad = 0, fd;
	const char *path = ag_query(req, "path", &bad);
	enum MHD_Result rc;
	struct stat st;
	char *abs;

	if (!path || !*path)
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_MISSING_QUERY, "missing query parameter 'path'");
	if (bad)
		return ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST, "a path must not contain NUL");
	abs = ag_abs_path(path);
	if (!abs)
		return ag_execd_error(req, MHD_HTTP_INTERNAL_SERVER_ERROR, AG_E_RUNTIME, "out of memory");
	/* O_NONBLOCK: opening a FIFO must not hang the connection. */
	fd = open(abs, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0) {
		rc = ag_execd_fs_error(req, "open", path, errno);
		if (fd >= 0)
			close(fd);
	} else if (S_ISDIR(st.st_mode)) {
		close(fd);
		rc = ag_execd_error(req, MHD_HTTP_BAD_REQUEST, AG_E_INVALID_REQUEST, "path is a directory: %s", path);
	} else {
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		rc = send_file(req, fd, (uint64_t)st.st_size, S_ISREG(st.st_mode) && st.st_size > 0, abs);
	}
	free(abs);
	return rc;
}
