/*
 * Plain HTTP/1.1 over TCP or a unix socket: requests written here, responses
 * parsed by libhttp-parser (status, headers, Content-Length, chunked and
 * close-delimited bodies). One connection per ax_http, kept alive between
 * requests. Every wait is a poll() bounded by the request's deadline, its
 * stall limit and a 100 ms tick for the progress callback, so Ctrl-C and
 * timeouts are seen promptly.
 */
#include "config.h"

#include "lib/http_backend.h"
#include "lib/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <http_parser.h>

#define CONNECT_TIMEOUT_MS 10000
#define TICK_MS 100
#define DEFAULT_CHUNK (64 * 1024)
#define HEADER_MAX 8192

typedef struct xfer {
	ax_http_call *call;
	ax_http *c;
	long long deadline;     /* ms, 0 = none */
	long long last_move;    /* ms of the last byte moved */
	unsigned long long down, up;
	long long down_total;
	char field[HEADER_MAX], value[HEADER_MAX];
	size_t flen, vlen;
	bool in_value, complete, aborted, got_bytes, got_headers;
	bool dead;              /* the peer closed or reset the connection before answering */
} xfer;

static int failf(ax_http_call *call, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int failf(ax_http_call *call, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(call->errbuf, sizeof call->errbuf, fmt, ap);
	va_end(ap);
	return -1;
}

/* A zeroed ax_http (never initialised) has no connection, not fd 0. */
void ax_http_native_close(ax_http *c)
{
	if (c->connected)
		close(c->fd);
	c->connected = false;
	c->fresh = false;
	c->fd = -1;
}

/* "http://host[:port]/path" -> host, port, and the request target. */
static int split_url(const char *url, char *host, size_t hlen, char *port, size_t plen, const char **target)
{
	const char *a = url + 7, *slash, *colon, *end;

	if (strncmp(url, "http://", 7) != 0)
		return -1;
	slash = strchr(a, '/');
	end = slash ? slash : a + strlen(a);
	*target = slash ? slash : "/";
	if (*a == '[') {
		const char *close = memchr(a, ']', (size_t)(end - a));

		if (!close)
			return -1;
		snprintf(host, hlen, "%.*s", (int)(close - a - 1), a + 1);
		colon = close[1] == ':' ? close + 1 : NULL;
	} else {
		colon = memchr(a, ':', (size_t)(end - a));
		snprintf(host, hlen, "%.*s", (int)((colon ? colon : end) - a), a);
	}
	if (colon)
		snprintf(port, plen, "%.*s", (int)(end - colon - 1), colon + 1);
	else
		snprintf(port, plen, "80");
	return host[0] && port[0] ? 0 : -1;
}

/* Report progress; a callback that says stop aborts the transfer. */
static int progress(xfer *x)
{
	ax_http_call *call = x->call;

	if (call->progress_cb && call->progress_cb(call->progress_data, x->down, x->down_total, x->up) != 0) {
		x->aborted = true;
		return failf(call, "aborted");
	}
	return 0;
}

/* Wait for EVENTS on FD, waking every tick for the progress callback. */
static int wait_fd(xfer *x, int fd, short events)
{
	ax_http_call *call = x->call;

	for (;;) {
		struct pollfd pf = { fd, events, 0 };
		long long now = ax_mono_ms();
		long long wait = TICK_MS;
		int n;

		if (x->deadline && now >= x->deadline)
			return failf(call, "timed out after %ld s", call->timeout_s);
		if (call->stall_timeout_s > 0 && now - x->last_move >= call->stall_timeout_s * 1000LL)
			return failf(call, "no data moved for %ld s", call->stall_timeout_s);
		if (x->deadline && x->deadline - now < wait)
			wait = x->deadline - now;
		n = poll(&pf, 1, (int)wait);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return failf(call, "poll: %s", strerror(errno));
		if (progress(x) < 0)
			return -1;
	}
}

static int connect_fd(xfer *x, const char *host, const char *port)
{
	ax_http_call *call = x->call;
	long long deadline = ax_mono_ms() + CONNECT_TIMEOUT_MS;
	struct addrinfo hints = { 0 }, *res = NULL, *ai;
	int fd = -1, e = 0, rc;

	if (call->unix_socket) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };

		if (strlen(call->unix_socket) >= sizeof sa.sun_path)
			return failf(call, "socket path too long: %s", call->unix_socket);
		strcpy(sa.sun_path, call->unix_socket);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
			e = errno;
			if (fd >= 0)
				close(fd);
			return failf(call, "cannot connect to %s: %s", call->unix_socket, strerror(e));
		}
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		return fd;
	}
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0)
		return failf(call, "cannot resolve host %s: %s", host, gai_strerror(rc));
	for (ai = res; ai; ai = ai->ai_next) {
		socklen_t len = sizeof e;

		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
		if (fd < 0) {
			e = errno;
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		e = errno;
		if (e == EINPROGRESS) {
			long long save = x->deadline;

			if (!x->deadline || deadline < x->deadline)
				x->deadline = deadline;
			rc = wait_fd(x, fd, POLLOUT);
			x->deadline = save;
			if (rc < 0) {
				close(fd);
				freeaddrinfo(res);
				return x->aborted ? -1 : failf(call, "cannot connect to %s port %s: timed out", host, port);
			}
			if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) == 0 && e == 0)
				break;
		}
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return failf(call, "cannot connect to %s port %s: %s", host, port, strerror(e));
	return fd;
}

static int send_all(xfer *x, int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (wait_fd(x, fd, POLLOUT) < 0)
				return -1;
			continue;
		}
		if (w < 0) {
			x->dead = errno == EPIPE || errno == ECONNRESET;
			return failf(x->call, "send failed: %s", strerror(errno));
		}
		p += w;
		n -= (size_t)w;
		x->up += (unsigned long long)w;
		x->last_move = ax_mono_ms();
	}
	return 0;
}

static char *request_head(const ax_http_call *call, const char *host, const char *port, const char *target,
			  size_t *len)
{
	bool has_body = call->payload || call->read_cb;
	unsigned long long size = call->read_cb ? call->read_size : call->payload_len;
	size_t cap = 256 + strlen(target) + strlen(host);
	char *head, *p;
	int n;

	for (size_t i = 0; i < call->nheaders; i++)
		cap += strlen(call->headers[i]) + 2;
	head = malloc(cap);
	if (!head)
		return NULL;
	p = head;
	n = snprintf(p, cap, "%s %s HTTP/1.1\r\nHost: %s%s%s\r\n", call->method, target,
		     call->unix_socket ? "localhost" : host, call->unix_socket || strcmp(port, "80") == 0 ? "" : ":",
		     call->unix_socket || strcmp(port, "80") == 0 ? "" : port);
	p += n;
	for (size_t i = 0; i < call->nheaders; i++)
		p += snprintf(p, cap - (size_t)(p - head), "%s\r\n", call->headers[i]);
	if (has_body || strcmp(call->method, "POST") == 0 || strcmp(call->method, "PUT") == 0 ||
	    strcmp(call->method, "PATCH") == 0)
		p += snprintf(p, cap - (size_t)(p - head), "Content-Length: %llu\r\n", has_body ? size : 0ULL);
	p += snprintf(p, cap - (size_t)(p - head), "\r\n");
	*len = (size_t)(p - head);
	return head;
}

/* send_file's way for files sendfile() cannot read (some FUSE or special
 * file systems): pread and send. */
static int send_file_copy(xfer *x, int fd, int file, off_t at, unsigned long long len, size_t chunk)
{
	char *buf = malloc(chunk);
	int rc = 0;

	if (!buf)
		return failf(x->call, "out of memory");
	while (len && rc == 0) {
		ssize_t n = pread(file, buf, len < chunk ? (size_t)len : chunk, at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? failf(x->call, "cannot read local file: %s", strerror(errno))
				   : failf(x->call, "local file shrank while it was being uploaded");
			break;
		}
		rc = send_all(x, fd, buf, (size_t)n);
		at += n;
		len -= (unsigned long long)n;
		if (rc == 0)
			rc = progress(x);
	}
	free(buf);
	return rc;
}

/* LEN bytes of FILE from OFFSET, by sendfile: the kernel moves them from the
 * page cache to the socket without a copy through this process. */
static int send_file(xfer *x, int fd, int file, unsigned long long offset, unsigned long long len, size_t chunk)
{
	off_t at = (off_t)offset;

	while (len) {
		ssize_t w = sendfile(fd, file, &at, len < chunk ? (size_t)len : chunk);

		if (w < 0 && (errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP))
			return send_file_copy(x, fd, file, at, len, chunk);
		if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (wait_fd(x, fd, POLLOUT) < 0)
				return -1;
			continue;
		}
		if (w < 0 && errno != EPIPE && errno != ECONNRESET)
			return failf(x->call, "cannot read local file: %s", strerror(errno));
		if (w < 0) {
			x->dead = true;
			return failf(x->call, "send failed: %s", strerror(errno));
		}
		if (w == 0)
			return failf(x->call, "local file shrank while it was being uploaded");
		len -= (unsigned long long)w;
		x->up += (unsigned long long)w;
		x->last_move = ax_mono_ms();
		if (progress(x) < 0)
			return -1;
	}
	return 0;
}

static int send_body(xfer *x, int fd, size_t chunk)
{
	ax_http_call *call = x->call;
	unsigned long long left = call->read_size;
	char *buf;
	int rc = 0;

	if (call->file_fd >= 0) {
		rc = send_all(x, fd, call->head, call->head_len);
		if (rc == 0)
			rc = send_file(x, fd, call->file_fd, call->file_offset, call->file_len, chunk);
		return rc == 0 ? send_all(x, fd, call->tail, call->tail_len) : rc;
	}
	if (!call->read_cb)
		return call->payload_len ? send_all(x, fd, call->payload, call->payload_len) : 0;
	buf = malloc(chunk);
	if (!buf)
		return failf(call, "out of memory");
	while (left && rc == 0) {
		long long n = call->read_cb(buf, left < chunk ? (size_t)left : chunk, call->read_data);

		if (n < 0) {
			call->callback_failed = true;
			rc = failf(call, "the request body could not be read");
		} else if (n == 0) {
			rc = failf(call, "the request body ended %llu bytes early", left);
		} else {
			rc = send_all(x, fd, buf, (size_t)n);
			left -= (unsigned long long)n;
			if (rc == 0)
				rc = progress(x);
		}
	}
	free(buf);
	return rc;
}

static void flush_header(xfer *x)
{
	if (x->flen)
		ax_http_header_note(x->c, x->field, x->flen, x->value, x->vlen);
	x->flen = x->vlen = 0;
	x->in_value = false;
}

static int on_field(http_parser *p, const char *at, size_t n)
{
	xfer *x = p->data;

	if (x->in_value)
		flush_header(x);
	if (n > sizeof x->field - 1 - x->flen)
		n = sizeof x->field - 1 - x->flen;
	memcpy(x->field + x->flen, at, n);
	x->flen += n;
	return 0;
}

static int on_value(http_parser *p, const char *at, size_t n)
{
	xfer *x = p->data;

	x->in_value = true;
	if (n > sizeof x->value - 1 - x->vlen)
		n = sizeof x->value - 1 - x->vlen;
	memcpy(x->value + x->vlen, at, n);
	x->vlen += n;
	return 0;
}

static int on_headers_complete(http_parser *p)
{
	xfer *x = p->data;

	flush_header(x);
	x->call->status = p->status_code;
	x->down_total = (p->flags & F_CHUNKED) || p->content_length == (uint64_t)-1 ? -1 : (long long)p->content_length;
	x->got_headers = true;
	/* A HEAD answer announces a body it does not send. */
	return strcmp(x->call->method, "HEAD") == 0 ? 1 : 0;
}

static int on_body(http_parser *p, const char *at, size_t n)
{
	xfer *x = p->data;
	ax_http_call *call = x->call;

	x->down += n;
	if (call->write_cb && call->write_cb((char *)at, n, call->write_data) != n) {
		x->aborted = true;
		if (!call->callback_failed)
			failf(call, "the response could not be stored");
		return -1;
	}
	return 0;
}

static int on_complete(http_parser *p)
{
	xfer *x = p->data;

	x->complete = true;
	/* Stop here: bytes after the message belong to no request of ours. */
	http_parser_pause(p, 1);
	return 0;
}

/* The rest of a 200 body, LEFT bytes, from the socket to call->sink_fd by
 * splice (socket -> pipe -> file): one copy instead of recv's and write's. */
static int sink_body(xfer *x, int fd, unsigned long long left)
{
	ax_http_call *call = x->call;
	int pipefd[2], rc = 0;

	if (call->before_sink && call->before_sink(call->before_sink_data) < 0) {
		call->callback_failed = true;
		x->aborted = true;
		return failf(call, "the response could not be stored");
	}
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return failf(call, "pipe: %s", strerror(errno));
	/* A bigger pipe moves more per splice; the default 64 KiB still works. */
	(void)fcntl(pipefd[1], F_SETPIPE_SZ, 1 << 20);
	while (left && rc == 0) {
		ssize_t n = splice(fd, NULL, pipefd[1], NULL, left < (1 << 20) ? (size_t)left : (1 << 20),
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			rc = wait_fd(x, fd, POLLIN);
			continue;
		}
		if (n <= 0) {
			rc = n == 0 ? failf(call, "the connection closed before the response was complete")
				    : failf(call, "receive failed: %s", strerror(errno));
			break;
		}
		left -= (unsigned long long)n;
		x->down += (unsigned long long)n;
		call->sunk += (unsigned long long)n;
		x->last_move = ax_mono_ms();
		while (n > 0) {
			ssize_t m = splice(pipefd[0], NULL, call->sink_fd, NULL, (size_t)n, SPLICE_F_MOVE);

			if (m < 0 && errno == EINTR)
				continue;
			if (m <= 0) {
				call->sink_errno = m < 0 ? errno : EIO;
				x->aborted = true;
				rc = failf(call, "cannot write the response: %s", strerror(call->sink_errno));
				break;
			}
			n -= m;
		}
		if (rc == 0)
			rc = progress(x);
	}
	close(pipefd[0]);
	close(pipefd[1]);
	return rc;
}

static int receive(xfer *x, int fd, size_t chunk, bool *keep)
{
	ax_http_call *call = x->call;
	http_parser_settings settings;
	http_parser parser;
	char *buf = malloc(chunk);
	int rc = -1;

	if (!buf)
		return failf(call, "out of memory");
	http_parser_settings_init(&settings);
	settings.on_header_field = on_field;
	settings.on_header_value = on_value;
	settings.on_headers_complete = on_headers_complete;
	settings.on_body = on_body;
	settings.on_message_complete = on_complete;
	http_parser_init(&parser, HTTP_RESPONSE);
	parser.data = x;
	ax_http_headers_reset(x->c);
	while (!x->complete) {
		ssize_t n = recv(fd, buf, chunk, 0);

		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (wait_fd(x, fd, POLLIN) < 0)
				goto out;
			continue;
		}
		if (n < 0) {
			x->dead = errno == ECONNRESET && !x->got_bytes;
			failf(call, "receive failed: %s", strerror(errno));
			goto out;
		}
		if (n > 0) {
			x->got_bytes = true;
			x->last_move = ax_mono_ms();
		}
		http_parser_execute(&parser, &settings, buf, (size_t)n);
		if (x->aborted)
			goto out;
		if (n == 0 && !x->complete) {
			x->dead = !x->got_bytes;
			failf(call, x->got_bytes ? "the connection closed before the response was complete"
						 : "empty reply from server");
			goto out;
		}
		if (HTTP_PARSER_ERRNO(&parser) != HPE_OK && HTTP_PARSER_ERRNO(&parser) != HPE_PAUSED) {
			failf(call, "bad HTTP response: %s", http_errno_description(HTTP_PARSER_ERRNO(&parser)));
			goto out;
		}
		/* Headers in, part of the body maybe: the rest can bypass us. The
		 * parser counts down content_length as it hands out body bytes. */
		if (call->sink_fd >= 0 && x->got_headers && !x->complete && call->status == 200 && x->down_total > 0 &&
		    !(parser.flags & F_CHUNKED) && parser.content_length > 0) {
			if (sink_body(x, fd, parser.content_length) < 0)
				goto out;
			x->complete = true;
			break;
		}
		if (!x->complete && progress(x) < 0)
			goto out;
	}
	*keep = http_should_keep_alive(&parser) != 0;
	rc = 0;
out:
	free(buf);
	return rc;
}

int ax_http_native_perform(ax_http_call *call)
{
	ax_http *c = call->conn;
	char host[256], port[16], *head;
	const char *target;
	size_t head_len, chunk = call->buffer_size ? call->buffer_size : DEFAULT_CHUNK;
	xfer x;
	bool reused, keep = false;
	int attempt, rc = -1;

	if (split_url(call->url, host, sizeof host, port, sizeof port, &target) < 0)
		return failf(call, "unsupported URL: %s", call->url);
	head = request_head(call, host, port, target, &head_len);
	if (!head)
		return failf(call, "out of memory");
	/* A kept connection the server has closed meanwhile fails at once; then
	 * the request goes again on a new one. A streamed body cannot be replayed,
	 * so it always starts on a new connection. */
	if (call->read_cb)
		ax_http_native_close(c);
	for (attempt = 0; attempt < 2; attempt++) {
		memset(&x, 0, sizeof x);
		x.call = call;
		x.c = c;
		x.down_total = -1;
		x.last_move = ax_mono_ms();
		if (call->timeout_s > 0)
			x.deadline = x.last_move + call->timeout_s * 1000LL;
		reused = c->connected && !c->fresh;
		c->fresh = false;
		if (!c->connected) {
			c->fd = connect_fd(&x, host, port);
			if (c->fd < 0)
				break;
			c->connected = true;
		}
		rc = send_all(&x, c->fd, head, head_len);
		x.up = 0; /* progress counts body bytes, as libcurl does */
		if (rc == 0)
			rc = send_body(&x, c->fd, chunk);
		if (rc == 0 || (!x.aborted && !call->callback_failed))
			rc = receive(&x, c->fd, chunk, &keep);
		if (rc == 0 || !reused || !x.dead || x.aborted || call->callback_failed)
			break;
		ax_http_native_close(c);
		call->errbuf[0] = '\0';
	}
	if (rc < 0 || !keep)
		ax_http_native_close(c);
	free(head);
	return rc;
}
