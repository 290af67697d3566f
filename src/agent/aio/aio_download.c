/* GET /v1/file/download?path=P[&change_policy=ignore|abort]: the file's raw
 * bytes, streamed by MHD from the descriptor in constant memory, with one
 * Range honoured (206) so an interrupted transfer can resume.
 *
 * change_policy=abort pins the file as it was when opened: 409 if it had
 * already changed since the request looked at it, and a cut connection if
 * it changes while streaming, so a client never saves a torn copy. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/aio/aio_common.h"

#define DOWNLOAD_OP "download"
#define CHUNK (256u << 10)

/* For change_policy=abort: the open file, what it looked like, and the
 * byte range [from, end) to send. */
struct pinned {
	int fd;
	struct stat st;
	uint64_t from, end;
};

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

static ssize_t read_pinned(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct pinned *p = cls;
	struct stat now;
	ssize_t n;

	/* MHD counts POS from the start of the body, not of the file. */
	pos += p->from;
	if (pos >= p->end)
		return MHD_CONTENT_READER_END_OF_STREAM;
	if (fstat(p->fd, &now) < 0 || !same_file(&now, &p->st))
		return MHD_CONTENT_READER_END_WITH_ERROR;
	if (max > p->end - pos)
		max = (size_t)(p->end - pos);
	do
		n = pread(p->fd, buf, max, (off_t)pos);
	while (n < 0 && errno == EINTR);
	return n > 0 ? n : MHD_CONTENT_READER_END_WITH_ERROR;
}

static void free_pinned(void *cls)
{
	struct pinned *p = cls;

	close(p->fd);
	free(p);
}

/* A failure as JSON with a real status: unlike the other file routes,
 * download is not an envelope API, so the status is what clients check. */
static enum MHD_Result reply_error(struct ag_req *req, unsigned status, const char *path, const char *error_type,
				   int errnum, const char *msg)
{
	json_t *o = ag_envelope(NULL, aio_file_error(path, DOWNLOAD_OP, error_type, errnum, msg));

	json_object_set_new(o, "success", json_false());
	json_object_set_new(o, "message", ag_json_text(msg));
	return ag_reply_json(req, status, o);
}

static enum MHD_Result reply_errno(struct ag_req *req, const char *path, int e)
{
	char msg[PATH_MAX + 128];
	unsigned status = e == ENOENT || e == ENOTDIR ? MHD_HTTP_NOT_FOUND
			  : e == EACCES || e == EPERM ? MHD_HTTP_FORBIDDEN
			  : e == EISDIR ? MHD_HTTP_BAD_REQUEST
			  : MHD_HTTP_INTERNAL_SERVER_ERROR;

	snprintf(msg, sizeof msg, "[Errno %d] %s: '%s'", e, strerror(e), path);
	return reply_error(req, status, path, NULL, e, msg);
}

/* "bytes=A-B", "bytes=A-" or "bytes=-N" against SIZE. 1 with [*FROM, *TO]
 * set, 0 to send everything (no header, or one we do not handle), -1 when
 * nothing of the file is in range. */
static int parse_range(const char *h, uint64_t size, uint64_t *from, uint64_t *to)
{
	unsigned long long a, b;
	char *end;

	if (!h || strncmp(h, "bytes=", 6) != 0 || strchr(h, ','))
		return 0;
	h += 6;
	if (*h == '-') {
		b = strtoull(h + 1, &end, 10);
		if (end == h + 1 || *end)
			return 0;
		if (b == 0 || size == 0)
			return -1;
		*from = b >= size ? 0 : size - b;
		*to = size - 1;
		return 1;
	}
	a = strtoull(h, &end, 10);
	if (end == h || *end != '-')
		return 0;
	h = end + 1;
	b = *h ? strtoull(h, &end, 10) : size - 1;
	if (*h && (end == h || *end))
		return 0;
	if (a >= size)
		return -1;
	if (b < a)
		return 0;
	*from = a;
	*to = b >= size ? size - 1 : b;
	return 1;
}

/* Content-Disposition as Starlette's FileResponse writes it. */
static void add_disposition(struct MHD_Response *resp, const char *path)
{
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char value[3 * NAME_MAX + 64];
	size_t i, n;
	bool plain = true;

	for (i = 0; name[i]; i++)
		if ((unsigned char)name[i] < 0x20 || (unsigned char)name[i] >= 0x7f || name[i] == '"' ||
		    name[i] == '\\')
			plain = false;
	if (!*name)
		return;
	if (plain) {
		snprintf(value, sizeof value, "attachment; filename=\"%s\"", name);
	} else {
		n = (size_t)snprintf(value, sizeof value, "attachment; filename*=utf-8''");
		for (i = 0; name[i] && n + 4 < sizeof value; i++) {
			unsigned char c = (unsigned char)name[i];

			if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			    strchr("-._~", c))
				value[n++] = (char)c;
			else
				n += (size_t)snprintf(value + n, sizeof value - n, "%%%02X", c);
		}
		value[n] = '\0';
	}
	MHD_add_response_header(resp, "Content-Disposition", value);
}

static void add_validators(struct MHD_Response *resp, const struct stat *st)
{
	char buf[64];
	struct tm tm;

	gmtime_r(&st->st_mtim.tv_sec, &tm);
	strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_LAST_MODIFIED, buf);
	snprintf(buf, sizeof buf, "\"%jx-%jx-%lx\"", (uintmax_t)st->st_size, (uintmax_t)st->st_mtim.tv_sec,
		 (unsigned long)st->st_mtim.tv_nsec);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, buf);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_ACCEPT_RANGES, "bytes");
}

static struct MHD_Response *pinned_response(int fd, const struct stat *st, uint64_t from, uint64_t len)
{
	struct pinned *p = malloc(sizeof *p);
	struct MHD_Response *resp;

	if (!p)
		return NULL;
	p->fd = fd;
	p->st = *st;
	p->from = from;
	p->end = from + len;
	resp = MHD_create_response_from_callback(len, CHUNK, read_pinned, p, free_pinned);
	if (!resp)
		free(p);
	return resp;
}

enum MHD_Result aio_file_download(struct ag_req *req)
{
	const char *path = MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, "path");
	const char *policy = MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, "change_policy");
	const char *range = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_RANGE);
	struct aio_args a = { NULL, NULL, "query" };
	uint64_t from = 0, to = 0, size;
	struct stat before, st;
	struct MHD_Response *resp;
	bool pin;
	char buf[64];
	int fd, r;

	if (!path)
		aio_args_invalid(&a, "path", "missing", "Field required");
	if (policy && strcmp(policy, "ignore") != 0 && strcmp(policy, "abort") != 0)
		aio_args_invalid(&a, "change_policy", "enum", "Input should be 'ignore' or 'abort'");
	if (!aio_args_ok(&a) || !path) {
		enum MHD_Result rc = aio_reply_invalid(req, &a);

		aio_args_free(&a);
		return rc;
	}
	pin = policy && strcmp(policy, "abort") == 0;
	if (!aio_path_ok(path))
		return reply_error(req, MHD_HTTP_BAD_REQUEST, path, "invalid_path", 0, "Path must be absolute");
	if (stat(path, &before) < 0)
		return reply_errno(req, path, errno);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return reply_errno(req, path, errno);
	r = fstat(fd, &st) < 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
	if (r) {
		close(fd);
		return reply_errno(req, path, r);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return reply_error(req, MHD_HTTP_BAD_REQUEST, path, "invalid_target", 0, "Not a regular file");
	}
	if (pin && !same_file(&before, &st)) {
		close(fd);
		return reply_error(req, MHD_HTTP_CONFLICT, path, "file_changed", 0,
				   "File changed before the download started");
	}
	size = (uint64_t)st.st_size;
	r = parse_range(range, size, &from, &to);
	if (r < 0) {
		close(fd);
		resp = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
		snprintf(buf, sizeof buf, "bytes */%" PRIu64, size);
		if (resp)
			MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_RANGE, buf);
		return ag_reply_queue(req, MHD_HTTP_RANGE_NOT_SATISFIABLE, resp);
	}
	if (r == 0) {
		from = 0;
		to = size ? size - 1 : 0;
	}
	if (pin)
		resp = pinned_response(fd, &st, from, size ? to - from + 1 : 0);
	else
		resp = MHD_create_response_from_fd_at_offset64(size ? to - from + 1 : 0, fd, from);
	if (!resp) {
		close(fd);
		return ag_reply_failure(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/octet-stream");
	add_disposition(resp, path);
	add_validators(resp, &st);
	if (r > 0) {
		snprintf(buf, sizeof buf, "bytes %" PRIu64 "-%" PRIu64 "/%" PRIu64, from, to, size);
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_RANGE, buf);
	}
	return ag_reply_queue(req, r > 0 ? MHD_HTTP_PARTIAL_CONTENT : MHD_HTTP_OK, resp);
}
