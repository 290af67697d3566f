/* The DevTools relay (cdp_relay.h). A thread accepts; a thread per
 * connection reads the request head (at most 16 KiB, 10 s), checks it with
 * http-parser, rewrites it and splices both ways to Chromium's port inside
 * the sandbox. The head is rewritten in two places: the secret prefix goes
 * from the request line, and Host becomes "127.0.0.1:PORT/cdp/SECRET", from
 * which Chromium builds the WebSocket URLs of /json/version and /json/list
 * (it accepts a Host whose host part is an IP address), so those lead back
 * through the relay. Non-WebSocket requests get "Connection: close": later
 * requests of a kept-alive connection would pass unrewritten. */
#include "agent/ext/browser/cdp_relay.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <http_parser.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "agent/ext/browser/browser.h"
#include "agent/core/log.h"
#include "lib/secret.h"
#include "lib/splice_copy.h"

#define HEAD_MAX 16384
#define HEAD_TIMEOUT_S 10
#define TOKEN_HEADER "X-EXECD-ACCESS-TOKEN"

struct ag_relay {
	int listen_fd, stop_fd;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t idle;
	int busy;                 /* connections still reading this struct or the browser */
	struct ag_browser *browser;
	char *token;
	size_t token_len;
	char prefix[48];          /* "/cdp/<32 hex>" */
	char host[96];            /* "127.0.0.1:PORT/cdp/<32 hex>" */
	char base[112];           /* "ws://" host */
};

/* ---------- the request head ---------- */

struct head {
	char url[2048];
	size_t url_len;
	char token[256];
	size_t token_len;
	bool token_overlong, upgrade, in_token, in_upgrade, done;
	char field[64];
	size_t field_len;
};

static int on_url(http_parser *p, const char *at, size_t n)
{
	struct head *h = p->data;

	if (h->url_len + n >= sizeof h->url)
		return 1;
	memcpy(h->url + h->url_len, at, n);
	h->url_len += n;
	h->url[h->url_len] = '\0';
	return 0;
}

static int on_field(http_parser *p, const char *at, size_t n)
{
	struct head *h = p->data;

	/* A new field starts after a value (or at the first). */
	if (h->in_token || h->in_upgrade || h->field_len == sizeof h->field) {
		h->in_token = h->in_upgrade = false;
		h->field_len = 0;
	}
	if (h->field_len + n < sizeof h->field) {
		memcpy(h->field + h->field_len, at, n);
		h->field_len += n;
		h->field[h->field_len] = '\0';
	} else {
		h->field_len = sizeof h->field;
	}
	return 0;
}

static int on_value(http_parser *p, const char *at, size_t n)
{
	struct head *h = p->data;

	if (h->field_len < sizeof h->field && strcasecmp(h->field, TOKEN_HEADER) == 0) {
		h->in_token = true;
		if (h->token_len + n >= sizeof h->token)
			h->token_overlong = true;
		else
			memcpy(h->token + h->token_len, at, n), h->token_len += n;
	} else if (h->field_len < sizeof h->field && strcasecmp(h->field, "Upgrade") == 0) {
		h->in_upgrade = true;
		h->upgrade = true;
	} else {
		h->in_token = h->in_upgrade = false;
		h->field_len = sizeof h->field;   /* the next field callback starts afresh */
	}
	return 0;
}

static int on_headers_complete(http_parser *p)
{
	((struct head *)p->data)->done = true;
	/* Stop here: what follows (a body, WebSocket frames) is Chromium's. */
	return 2;
}

/* Read until the head is complete; its length in *HEAD_LEN, all bytes read
 * in *LEN. -1 when it never completes or does not parse. */
static int read_head(int fd, char *buf, size_t cap, size_t *len, size_t *head_len, struct head *h)
{
	http_parser_settings s;
	http_parser p;

	memset(&s, 0, sizeof s);
	s.on_url = on_url;
	s.on_header_field = on_field;
	s.on_header_value = on_value;
	s.on_headers_complete = on_headers_complete;
	http_parser_init(&p, HTTP_REQUEST);
	p.data = h;
	*len = 0;
	while (!h->done) {
		ssize_t n = recv(fd, buf + *len, cap - *len, 0);
		size_t used;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		used = http_parser_execute(&p, &s, buf + *len, (size_t)n);
		if (h->done) {
			*head_len = *len + used;
			*len += (size_t)n;
			return 0;
		}
		if (HTTP_PARSER_ERRNO(&p) != HPE_OK || used != (size_t)n)
			return -1;
		*len += (size_t)n;
		if (*len == cap)
			return -1;
	}
	return -1;
}

/* HEAD (LEN bytes) as Chromium gets it, into OUT; its length, or 0 if it
 * does not fit. The request line loses the prefix, Host names the relay's
 * path, and a plain request closes the connection after its answer. */
static size_t rewrite(const struct ag_relay *r, const struct head *h, const char *head, size_t len, char *out,
		      size_t cap)
{
	const char *line_end = memmem(head, len, "\r\n", 2), *p;
	size_t used = 0, plen = strlen(r->prefix);
	const char *url = memmem(head, line_end ? (size_t)(line_end - head) : 0, h->url, h->url_len);

#define PUT(s, n)                                  \
	do {                                       \
		if (used + (n) > cap)              \
			return 0;                  \
		memcpy(out + used, (s), (n));      \
		used += (n);                       \
	} while (0)
	if (!line_end || !url)
		return 0;
	PUT(head, (size_t)(url - head));
	if (h->url_len >= plen && memcmp(h->url, r->prefix, plen) == 0) {
		const char *rest = h->url + plen;

		if (!*rest)
			rest = "/";
		PUT(rest, strlen(rest));
	} else {
		PUT(h->url, h->url_len);
	}
	PUT(url + h->url_len, (size_t)(line_end + 2 - (url + h->url_len)));
	/* Headers, one line at a time, up to the blank line. */
	for (p = line_end + 2; p < head + len;) {
		const char *e = memmem(p, (size_t)(head + len - p), "\r\n", 2);

		if (!e)
			return 0;
		if (e == p) {
			char extra[160];
			int n = snprintf(extra, sizeof extra, "Host: %s\r\n%s\r\n", r->host,
					 h->upgrade ? "" : "Connection: close\r\n");

			PUT(extra, (size_t)n);
			return used;
		}
		if (!(strncasecmp(p, "Host:", 5) == 0 || (!h->upgrade && strncasecmp(p, "Connection:", 11) == 0) ||
		      strncasecmp(p, TOKEN_HEADER ":", strlen(TOKEN_HEADER) + 1) == 0))
			PUT(p, (size_t)(e + 2 - p));
		p = e + 2;
	}
#undef PUT
	return 0;
}

/* ---------- moving bytes ---------- */

struct pump_args {
	int in, out;
};

static void *pump(void *arg)
{
	struct pump_args *a = arg;

	ax_splice_copy(a->in, a->out);
	return NULL;
}

static void answer(int fd, const char *status, const char *json)
{
	char buf[512];
	int n = snprintf(buf, sizeof buf,
			 "HTTP/1.1 %s\r\nContent-Type: application/json\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
			 status, strlen(json), json);

	if (n > 0 && send(fd, buf, (size_t)n, MSG_NOSIGNAL) < 0) {
		/* The client is gone: nothing to tell. */
	}
}

static bool authorised(const struct ag_relay *r, const struct head *h)
{
	size_t plen = strlen(r->prefix);

	if (h->token_len && !h->token_overlong && ax_secret_equal(r->token, r->token_len, h->token, h->token_len))
		return true;
	/* The prefix, as a whole path segment; compared like the token. */
	return h->url_len >= plen && ax_secret_equal(r->prefix, plen, h->url, plen) &&
	       (h->url[plen] == '\0' || h->url[plen] == '/' || h->url[plen] == '?');
}

struct conn {
	struct ag_relay *relay;
	int fd;
};

static void done_with(struct ag_relay *r)
{
	pthread_mutex_lock(&r->lock);
	if (--r->busy == 0)
		pthread_cond_broadcast(&r->idle);
	pthread_mutex_unlock(&r->lock);
}

static void *conn_main(void *arg)
{
	struct conn *c = arg;
	struct ag_relay *r = c->relay;
	struct timeval tv = { HEAD_TIMEOUT_S, 0 };
	struct ag_error err = { 0 };
	struct head *h = calloc(1, sizeof *h);
	char *buf = malloc(HEAD_MAX), *out = malloc(HEAD_MAX + 256);
	size_t len = 0, head_len = 0, out_len;
	int s = -1, port = 0, one = 1;

	setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	if (!h || !buf || !out || read_head(c->fd, buf, HEAD_MAX, &len, &head_len, h) < 0) {
		answer(c->fd, "400 Bad Request", "{\"error\":\"Bad request\"}");
		goto out;
	}
	if (!authorised(r, h)) {
		answer(c->fd, "401 Unauthorized", "{\"error\":\"Unauthorized: missing or invalid " TOKEN_HEADER "\"}");
		goto out;
	}
	out_len = rewrite(r, h, buf, head_len, out, HEAD_MAX + 256);
	if (!out_len) {
		answer(c->fd, "400 Bad Request", "{\"error\":\"Bad request\"}");
		goto out;
	}
	if (ag_browser_port(r->browser, &port, &err) < 0) {
		char msg[600];

		snprintf(msg, sizeof msg, "{\"error\":\"browser unavailable (%d)\"}", (int)err.status);
		answer(c->fd, "503 Service Unavailable", msg);
		goto out;
	}
	{
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		struct pump_args up, down;
		pthread_t t;

		s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a) < 0) {
			answer(c->fd, "502 Bad Gateway", "{\"error\":\"cannot reach the browser\"}");
			goto out;
		}
		setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		tv.tv_sec = 0;
		setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
		/* The rewritten head, then what the client sent after it. */
		if (send(s, out, out_len, MSG_NOSIGNAL) != (ssize_t)out_len ||
		    (len > head_len && send(s, buf + head_len, len - head_len, MSG_NOSIGNAL) != (ssize_t)(len - head_len)))
			goto out;
		free(buf);
		free(out);
		buf = out = NULL;
		up = (struct pump_args){ c->fd, s };
		down = (struct pump_args){ s, c->fd };
		/* From here on neither R nor the browser is touched. */
		done_with(r);
		r = NULL;
		if (pthread_create(&t, NULL, pump, &down) == 0) {
			pump(&up);
			pthread_join(t, NULL);
		}
	}
out:
	if (r)
		done_with(r);
	if (s >= 0)
		close(s);
	close(c->fd);
	free(h);
	free(buf);
	free(out);
	free(c);
	return NULL;
}

static void *accept_main(void *arg)
{
	struct ag_relay *r = arg;
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 128 * 1024);
	for (;;) {
		struct pollfd p[2] = { { r->listen_fd, POLLIN, 0 }, { r->stop_fd, POLLIN, 0 } };
		struct conn *c;
		pthread_t t;
		int fd;

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents)
			break;
		if (!p[0].revents)
			continue;
		fd = accept4(r->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		c = malloc(sizeof *c);
		if (!c) {
			close(fd);
			continue;
		}
		c->relay = r;
		c->fd = fd;
		pthread_mutex_lock(&r->lock);
		r->busy++;
		pthread_mutex_unlock(&r->lock);
		if (pthread_create(&t, &attr, conn_main, c) != 0) {
			done_with(r);
			free(c);
			close(fd);
		}
	}
	pthread_attr_destroy(&attr);
	return NULL;
}

struct ag_relay *ag_relay_start(int listen_fd, struct ag_browser *b, const char *token, size_t token_len)
{
	struct ag_relay *r = calloc(1, sizeof *r);
	struct sockaddr_in a;
	socklen_t alen = sizeof a;
	unsigned char raw[16];
	char hex[33];

	memset(&a, 0, sizeof a);
	if (!r || getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw ||
	    getsockname(listen_fd, (struct sockaddr *)&a, &alen) < 0 || a.sin_family != AF_INET)
		goto fail;
	for (size_t i = 0; i < sizeof raw; i++)
		snprintf(hex + 2 * i, 3, "%02x", raw[i]);
	/* Its own secret, not the token: a cdp_url that shows up in a log or a
	 * terminal opens the browser, not the sandbox's shell API. */
	snprintf(r->prefix, sizeof r->prefix, "/cdp/%s", hex);
	snprintf(r->host, sizeof r->host, "127.0.0.1:%d%s", (int)ntohs(a.sin_port), r->prefix);
	snprintf(r->base, sizeof r->base, "ws://%s", r->host);
	r->token = malloc(token_len + 1);
	if (!r->token)
		goto fail;
	memcpy(r->token, token, token_len);
	r->token[token_len] = '\0';
	r->token_len = token_len;
	r->browser = b;
	r->listen_fd = listen_fd;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->idle, NULL);
	r->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (r->stop_fd < 0 || fcntl(listen_fd, F_SETFD, FD_CLOEXEC) < 0 ||
	    pthread_create(&r->thread, NULL, accept_main, r) != 0) {
		if (r->stop_fd >= 0)
			close(r->stop_fd);
		goto fail;
	}
	return r;
fail:
	ag_log("browser: cannot serve DevTools on fd %d", listen_fd);
	close(listen_fd);
	if (r)
		free(r->token);
	free(r);
	return NULL;
}

void ag_relay_stop(struct ag_relay *r)
{
	struct timespec until;
	uint64_t one = 1;
	int busy;

	if (!r)
		return;
	if (write(r->stop_fd, &one, sizeof one) < 0) {
		/* Only an overflowing eventfd refuses a write. */
	}
	pthread_join(r->thread, NULL);
	close(r->listen_fd);
	close(r->stop_fd);
	/* Connections still reading a head or waiting for the browser use R
	 * and the browser, which goes next: give them a moment, and keep R
	 * (a leak at the agent's exit) if one is still there. */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 2;
	pthread_mutex_lock(&r->lock);
	while (r->busy > 0 && pthread_cond_timedwait(&r->idle, &r->lock, &until) == 0)
		;
	busy = r->busy;
	pthread_mutex_unlock(&r->lock);
	if (busy > 0)
		return;
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->idle);
	free(r->token);
	free(r);
}

const char *ag_relay_base(const struct ag_relay *r)
{
	return r ? r->base : NULL;
}
