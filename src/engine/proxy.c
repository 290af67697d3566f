/* The server proxy's connections (proxy.h): parse the request header,
 * authorise, connect to the sandbox's port, forward the header with the
 * path after the proxy prefix, then relay both ways. */
#include "engine/proxy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engine/http_server.h"
#include "engine/sandbox.h"
#include "engine/wire_error.h"
#include "lib/secret.h"
#include "lib/splice_copy.h"

#define HEADER_MAX (32 * 1024)

typedef struct target {
	char id[128];
	char port[8];
	unsigned long long expires;  /* signed: its expiry, else 0 */
	char sig[65];
	const char *rest;            /* the path for the sandbox: "", "/..." or "?..." */
	size_t rest_len;
	char prefix[192];            /* the path of the direct endpoint, before REST ("" or "/egress/ID") */
} target;

typedef struct conn {
	ax_engine *e;
	int fd;
	bool require_key;
} conn;

/* Copy the segment at *P (up to '/', '?', ' ' or END) into OUT; false when
 * empty or too long. */
static bool segment(const char **p, const char *end, char *out, size_t max)
{
	size_t n = 0;

	while (*p + n < end && !strchr("/? ", (*p)[n]))
		n++;
	if (n == 0 || n >= max)
		return false;
	memcpy(out, *p, n);
	out[n] = '\0';
	*p += n;
	return true;
}

static bool literal(const char **p, const char *end, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(end - *p) < n || strncmp(*p, s, n) != 0)
		return false;
	*p += n;
	return true;
}

/* "sig-<expiry base 36>-<64 hex>" */
static bool signature(const char *seg, target *t)
{
	const char *dash;
	char *end;

	if (strncmp(seg, "sig-", 4) != 0 || !(dash = strchr(seg + 4, '-')) || strlen(dash + 1) != 64)
		return false;
	errno = 0;
	t->expires = strtoull(seg + 4, &end, 36);
	if (errno || end != dash || t->expires == 0)
		return false;
	memcpy(t->sig, dash + 1, 65);
	return true;
}

/* Parse request target P..END: true for a proxy path, into T. */
static bool parse_target(const char *p, const char *end, target *t)
{
	char seg[128];

	memset(t, 0, sizeof *t);
	literal(&p, end, "/v1");
	if (!literal(&p, end, "/sandboxes/") || !segment(&p, end, t->id, sizeof t->id) ||
	    !literal(&p, end, "/proxy/") || !segment(&p, end, t->port, sizeof t->port))
		return false;
	if (end - p > 5 && strncmp(p, "/sig-", 5) == 0) {
		p++;
		if (!segment(&p, end, seg, sizeof seg) || !signature(seg, t))
			return false;
	}
	t->rest = p;
	t->rest_len = (size_t)(end - p);
	return t->rest_len == 0 || *p == '/' || *p == '?';
}

/* The request target in the header line at BUF: *START, *END. */
static bool request_target(const char *buf, size_t len, const char **start, const char **end)
{
	const char *sp = memchr(buf, ' ', len), *sp2;

	if (!sp)
		return false;
	sp2 = memchr(sp + 1, ' ', len - (size_t)(sp + 1 - buf));
	if (!sp2)
		return false;
	*start = sp + 1;
	*end = sp2;
	return true;
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

static void answer_error(int fd, const ax_error *err)
{
	int status = ax_wire_status(err->peer_code);
	json_t *body = json_pack("{s:s, s:s}", "code", strstr(err->peer_code, "::") ? err->peer_code : "GENERAL::UNKNOWN_ERROR",
				 "message", err->message);
	char *text = body ? json_dumps(body, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL, head[256];

	snprintf(head, sizeof head,
		 "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
		 status, status < 500 ? "Refused" : "Error", text ? strlen(text) : 0);
	write_all(fd, head, strlen(head));
	if (text)
		write_all(fd, text, strlen(text));
	free(text);
	json_decref(body);
}

/* The value of header NAME in HEAD (lines after the request line), or NULL;
 * copied into OUT. */
static const char *header(const char *head, size_t len, const char *name, char *out, size_t max)
{
	size_t n = strlen(name);

	for (const char *l = memchr(head, '\n', len); l && l + 1 < head + len; l = memchr(l + 1, '\n', (size_t)(head + len - l - 1))) {
		const char *s = l + 1, *e = memchr(s, '\n', (size_t)(head + len - s));
		size_t vlen;

		if (!e || (size_t)(e - s) <= n || strncasecmp(s, name, n) != 0 || s[n] != ':')
			continue;
		s += n + 1;
		while (*s == ' ' || *s == '\t')
			s++;
		vlen = (size_t)(e - s);
		while (vlen && (s[vlen - 1] == '\r' || s[vlen - 1] == ' '))
			vlen--;
		if (vlen >= max)
			return NULL;
		memcpy(out, s, vlen);
		out[vlen] = '\0';
		return out;
	}
	return NULL;
}

static int authorise(const conn *c, const target *t, const char *head, size_t len, ax_error *err)
{
	char given[256], want[65];
	long port;

	if (ax_port_parse(t->port, &port, err) < 0)
		return -1;
	if (t->expires) {
		ax_proxy_sign(c->e, t->id, port, t->expires, want);
		if (!ax_secret_equal(want, 64, t->sig, strlen(t->sig)))
			return ax_wire_fail(err, "SANDBOX::UNAUTHORIZED", "the endpoint's signature is not the engine's");
		if ((unsigned long long)ax_engine_now(c->e) >= t->expires)
			return ax_wire_fail(err, "SANDBOX::UNAUTHORIZED", "the signed endpoint has expired");
		return 0;
	}
	if (!c->require_key)
		return 0;
	if (header(head, len, "OPEN-SANDBOX-API-KEY", given, sizeof given) &&
	    ax_secret_equal(c->e->api_key, strlen(c->e->api_key), given, strlen(given)))
		return 0;
	ax_proxy_token(c->e, t->id, want);
	if (header(head, len, AX_PROXY_TOKEN_HEADER, given, sizeof given) && ax_secret_equal(want, 64, given, strlen(given)))
		return 0;
	return ax_wire_fail(err, "SANDBOX::UNAUTHORIZED",
			    "the proxy needs the API key, the sandbox's " AX_PROXY_TOKEN_HEADER " (from its endpoint) or "
			    "a signed endpoint");
}

/* A connection to where the direct endpoint of T's port leads (its path, if
 * any, into T's prefix), or -1 with ERR. */
static int upstream(const conn *c, target *t, ax_error *err)
{
	json_t *ep = ax_sandbox_endpoint(c->e, t->id, t->port, err);
	const char *s = json_string_value(json_object_get(ep, "endpoint")), *path;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = -1, port;

	if (!ep)
		return -1;
	port = s && strncmp(s, "127.0.0.1:", 10) == 0 ? atoi(s + 10) : 0;
	path = s ? strchr(s + 10, '/') : NULL;
	if (port <= 0 || port > 65535 || (path && strlen(path) >= sizeof t->prefix)) {
		json_decref(ep);
		return ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER", "port %s is not proxied", t->port);
	}
	snprintf(t->prefix, sizeof t->prefix, "%s", path ? path : "");
	a.sin_port = htons((unsigned short)port);
	json_decref(ep);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
		if (fd >= 0)
			close(fd);
		return ax_wire_fail(err, "SANDBOX::BAD_GATEWAY", "cannot reach port %s of sandbox %s: %s", t->port, t->id,
				    strerror(errno));
	}
	return fd;
}

static bool hop_header(const char *line, size_t n)
{
	static const char *const drop[] = { "OPEN-SANDBOX-API-KEY:", AX_PROXY_TOKEN_HEADER ":", "Connection:" };

	for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++)
		if (n >= strlen(drop[i]) && strncasecmp(line, drop[i], strlen(drop[i])) == 0)
			return true;
	return false;
}

/* Send the header to UP: the request line with the path after the prefix,
 * without the engine's credentials; one request per connection unless it
 * upgrades (the relay does not parse what follows). */
static void forward_header(int up, const char *head, size_t len, const target *t, const char *tstart,
			   const char *tend)
{
	char conn_value[128];
	bool upgrade = header(head, len, "Upgrade", conn_value, sizeof conn_value) != NULL;
	const char *line = (const char *)memchr(head, '\n', len) + 1;

	write_all(up, head, (size_t)(tstart - head));
	write_all(up, t->prefix, strlen(t->prefix));
	if (!t->prefix[0] && (!t->rest_len || t->rest[0] == '?'))
		write_all(up, "/", 1);
	write_all(up, t->rest, t->rest_len);
	write_all(up, tend, (size_t)(line - tend));
	while (line < head + len) {
		const char *e = memchr(line, '\n', (size_t)(head + len - line));
		size_t n = e ? (size_t)(e + 1 - line) : (size_t)(head + len - line);

		if (n <= 2 && (line[0] == '\r' || line[0] == '\n'))
			break;
		if (!hop_header(line, n))
			write_all(up, line, n);
		else if (upgrade && strncasecmp(line, "Connection:", 11) == 0)
			write_all(up, line, n);
		line += n;
	}
	if (!upgrade)
		write_all(up, "Connection: close\r\n", 19);
	write_all(up, "\r\n", 2);
}

/* The length of the header at the start of FD's input, or 0. */
static size_t header_length(int fd, char *buf, size_t max)
{
	ssize_t n = recv(fd, buf, max, MSG_PEEK);

	for (ssize_t i = 0; n > 0 && i < n; i++)
		if (buf[i] == '\n' && ((i >= 1 && buf[i - 1] == '\n') || (i >= 2 && buf[i - 1] == '\r' && buf[i - 2] == '\n')))
			return (size_t)i + 1;
	return 0;
}

static void serve(conn *c)
{
	char *head = malloc(HEADER_MAX);
	const char *ts, *te;
	size_t len;
	ax_error err;
	target t;
	int up = -1;

	fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) & ~O_NONBLOCK);
	len = head ? header_length(c->fd, head, HEADER_MAX) : 0;
	if (!len || recv(c->fd, head, len, 0) != (ssize_t)len || !request_target(head, len, &ts, &te) ||
	    !parse_target(ts, te, &t)) {
		ax_wire_fail(&err, "GENERAL::NOT_FOUND", "not a proxy request");
		answer_error(c->fd, &err);
	} else if (authorise(c, &t, head, len, &err) < 0 || (up = upstream(c, &t, &err)) < 0) {
		answer_error(c->fd, &err);
	} else {
		forward_header(up, head, len, &t, ts, te);
		ax_splice_relay(c->fd, up);
		close(up);
	}
	free(head);
	close(c->fd);
}

static void *conn_main(void *arg)
{
	conn *c = arg;

	serve(c);
	free(c);
	return NULL;
}

bool ax_proxy_path(const char *path)
{
	target t;

	return parse_target(path, path + strlen(path), &t);
}

bool ax_proxy_take(const ax_http_server *srv, int fd)
{
	/* The whole request line, as long as the gate let it be: a proxy
	 * request it misses would be redirected back to it for ever. */
	char *buf = malloc(HEADER_MAX);
	ssize_t n = buf ? recv(fd, buf, HEADER_MAX, MSG_PEEK | MSG_DONTWAIT) : -1;
	const char *ts, *te;
	pthread_attr_t attr;
	pthread_t th;
	target t;
	conn *c;

	bool mine = n > 0 && request_target(buf, (size_t)n, &ts, &te) && parse_target(ts, te, &t);

	free(buf);
	if (!mine)
		return false;
	c = calloc(1, sizeof *c);
	if (!c) {
		close(fd);
		return true;
	}
	c->e = srv->engine;
	c->fd = fd;
	c->require_key = srv->require_key;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &attr, conn_main, c) != 0) {
		close(fd);
		free(c);
	}
	pthread_attr_destroy(&attr);
	return true;
}
