/* The CDP client on libwebsockets 4.1: one lws context per connection,
 * serviced only by the thread that waits for something, with an lws timer
 * (sul) for the deadline, since lws_service ignores its timeout argument. */
#include "agent/ext/browser/cdp.h"

#include <libwebsockets.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/ext/browser/cdp_msg.h"

/* A full-page screenshot of a big page is tens of MB of base64 in one
 * message; puppeteer allows 256 MiB. */
#define CDP_MESSAGE_MAX ((size_t)256 << 20)
/* Receive buffers above this are released after their message. */
#define RX_KEEP ((size_t)4 << 20)
/* Events kept while recording (a page load sends about twenty). */
#define CDP_EVENTS_MAX 512

enum conn_state { CONNECTING, OPEN, CLOSED };

struct cdp {
	struct lws_context *ctx;
	struct lws *wsi;
	/* the message being received */
	char *rx;
	size_t rx_len, rx_cap;
	/* the one command being sent (LWS_PRE bytes of headroom) */
	unsigned char *tx;
	size_t tx_len;
	/* the answer waited for */
	long long next_id, wait_id;
	json_t *reply;             /* the whole response document */
	json_t *events;            /* recorded: [ [method, session|null, params|null], ... ] */
	lws_sorted_usec_list_t sul; /* the deadline of the current wait */
	cdp_event_fn on_event;
	void *on_event_arg;
	const char *interrupted;   /* why the current wait ends early, or NULL */
	enum conn_state state;
	bool rx_too_large;
	bool tx_pending;
	bool recording;
	bool expired;
	char why[200];             /* why it closed */
};

static int fail(struct cdp_error *err, enum cdp_status status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct cdp_error *err, enum cdp_status status, const char *fmt, ...)
{
	va_list ap;

	err->status = status;
	err->code = 0;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof err->message, fmt, ap);
	va_end(ap);
	return status;
}

static void closed(struct cdp *c, const char *why)
{
	if (c->state != CLOSED && why)
		snprintf(c->why, sizeof c->why, "%s", why);
	c->state = CLOSED;
	c->wsi = NULL;
}

static void keep_event(struct cdp *c, const struct cdp_msg *m)
{
	json_t *e;

	if (!c->recording)
		return;
	if (json_array_size(c->events) >= CDP_EVENTS_MAX)
		json_array_remove(c->events, 0);
	e = json_pack("[s, s?, O?]", m->method, m->session, m->params);
	if (e)
		json_array_append_new(c->events, e);
}

/* One complete message has arrived. */
static void dispatch(struct cdp *c)
{
	struct cdp_msg m;
	json_t *doc;

	if (cdp_msg_parse(c->rx, c->rx_len, &doc, &m) < 0)
		return;	/* not for us to understand; CDP never sends such */
	if (m.kind == CDP_MSG_RESPONSE && m.id == c->wait_id && !c->reply)
		c->reply = json_incref(doc);
	else if (m.kind == CDP_MSG_EVENT) {
		const char *reason = NULL;

		if (c->on_event && c->on_event(m.method, m.session, m.params, c->on_event_arg, &reason))
			c->interrupted = reason ? reason : m.method;
		keep_event(c, &m);
	}
	/* Late answers to commands that timed out are dropped. */
	json_decref(doc);
}

static int receive(struct cdp *c, struct lws *wsi, const void *in, size_t len)
{
	if (lws_is_first_fragment(wsi)) {
		c->rx_len = 0;
		c->rx_too_large = false;
	}
	if (!c->rx_too_large && c->rx_len + len + 1 > c->rx_cap) {
		size_t cap = c->rx_cap ? c->rx_cap : 65536;
		char *grown;

		while (cap < c->rx_len + len + 1)
			cap *= 2;
		grown = cap <= CDP_MESSAGE_MAX ? realloc(c->rx, cap) : NULL;
		if (!grown) {
			c->rx_too_large = true;
		} else {
			c->rx = grown;
			c->rx_cap = cap;
		}
	}
	if (!c->rx_too_large) {
		memcpy(c->rx + c->rx_len, in, len);
		c->rx_len += len;
	}
	if (lws_is_final_fragment(wsi) && lws_remaining_packet_payload(wsi) == 0) {
		if (c->rx_too_large) {
			/* Its answer is lost: end the connection rather than wait. */
			closed(c, "a message from Chromium was over 256 MiB");
			return -1;
		}
		dispatch(c);
		c->rx_len = 0;
		/* Keep a small buffer, not the largest screenshot ever seen. */
		if (c->rx_cap > RX_KEEP) {
			free(c->rx);
			c->rx = NULL;
			c->rx_cap = 0;
		}
	}
	return 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
	struct cdp *c = lws_context_user(lws_get_context(wsi));

	if (!c)
		return 0;
	switch (reason) {
	case LWS_CALLBACK_CLIENT_ESTABLISHED:
		c->state = OPEN;
		break;
	case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
		closed(c, in && len ? (const char *)in : "connection refused");
		break;
	case LWS_CALLBACK_CLIENT_CLOSED:
		closed(c, "Chromium closed the DevTools connection");
		break;
	case LWS_CALLBACK_WSI_DESTROY:
		if (c->wsi == wsi || c->state == CONNECTING)
			closed(c, "the DevTools connection ended");
		break;
	case LWS_CALLBACK_CLIENT_RECEIVE:
		return receive(c, wsi, in, len);
	case LWS_CALLBACK_CLIENT_WRITEABLE:
		if (c->tx_pending) {
			c->tx_pending = false;
			if (lws_write(wsi, c->tx + LWS_PRE, c->tx_len, LWS_WRITE_TEXT) < (int)c->tx_len) {
				closed(c, "cannot write to the DevTools connection");
				return -1;
			}
		}
		break;
	default:
		break;
	}
	return 0;
}

static const struct lws_protocols protocols[] = {
	{ "cdp", callback, 0, 65536, 0, NULL, 0 },
	{ NULL, NULL, 0, 0, 0, NULL, 0 },
};

static void expire(lws_sorted_usec_list_t *sul)
{
	struct cdp *c = (struct cdp *)((char *)sul - offsetof(struct cdp, sul));

	c->expired = true;
}

/* Service the connection until DONE(C) or the deadline. */
static void service_until(struct cdp *c, bool (*done)(struct cdp *c, void *arg), void *arg, int timeout_ms)
{
	c->expired = false;
	c->interrupted = NULL;
	lws_sul_schedule(c->ctx, 0, &c->sul, expire, (lws_usec_t)timeout_ms * LWS_US_PER_MS);
	while (!done(c, arg) && !c->expired && !c->interrupted && c->state != CLOSED)
		if (lws_service(c->ctx, 0) < 0)
			break;
	lws_sul_cancel(&c->sul);
}

static bool is_open(struct cdp *c, void *arg)
{
	return c->state == OPEN;
}

struct cdp *cdp_open(const char *host, int port, const char *path, int timeout_ms, struct cdp_error *err)
{
	struct lws_context_creation_info info;
	struct lws_client_connect_info ci;
	struct cdp *c = calloc(1, sizeof *c);

	if (!c || !(c->events = json_array())) {
		free(c);
		fail(err, CDP_FAILED, "out of memory");
		return NULL;
	}
	/* lws logs every connection at NOTICE level to stderr otherwise. */
	lws_set_log_level(LLL_ERR, NULL);
	memset(&info, 0, sizeof info);
	info.port = CONTEXT_PORT_NO_LISTEN;
	info.protocols = protocols;
	info.user = c;
	info.gid = (gid_t)-1;
	info.uid = (uid_t)-1;
	/* lws sizes its tables by the fd limit otherwise, which may be huge. */
	info.fd_limit_per_thread = 16;
	c->ctx = lws_create_context(&info);
	if (!c->ctx) {
		fail(err, CDP_FAILED, "cannot create a libwebsockets context");
		cdp_close(c);
		return NULL;
	}
	memset(&ci, 0, sizeof ci);
	ci.context = c->ctx;
	ci.address = host;
	ci.port = port;
	ci.path = path;
	ci.host = host;         /* DevTools refuses a Host that is not an IP or localhost */
	ci.origin = NULL;       /* and a foreign Origin: send none */
	ci.protocol = NULL;
	ci.local_protocol_name = protocols[0].name;
	ci.pwsi = &c->wsi;
	c->state = CONNECTING;
	if (!lws_client_connect_via_info(&ci) && c->state != CLOSED)
		closed(c, "cannot start the connection");
	service_until(c, is_open, NULL, timeout_ms);
	if (c->state != OPEN) {
		fail(err, c->state == CLOSED ? CDP_FAILED : CDP_TIMEOUT, "DevTools WebSocket ws://%s:%d%s: %s", host,
		     port, path, c->state == CLOSED ? c->why : "no handshake in time");
		cdp_close(c);
		return NULL;
	}
	return c;
}

void cdp_close(struct cdp *c)
{
	if (!c)
		return;
	if (c->ctx)
		lws_context_destroy(c->ctx);
	json_decref(c->reply);
	json_decref(c->events);
	free(c->rx);
	free(c->tx);
	free(c);
}

bool cdp_alive(const struct cdp *c)
{
	return c && c->state == OPEN;
}

static bool answered(struct cdp *c, void *arg)
{
	return c->reply != NULL;
}

int cdp_call(struct cdp *c, const char *session, const char *method, const json_t *params, int timeout_ms,
	     json_t **result, struct cdp_error *err)
{
	size_t len;
	char *text;
	json_t *error, *res;
	int rc;

	if (result)
		*result = NULL;
	if (!cdp_alive(c))
		return fail(err, CDP_FAILED, "%s: %s", method, c && *c->why ? c->why : "not connected");
	json_decref(c->reply);
	c->reply = NULL;
	c->wait_id = ++c->next_id;
	text = cdp_msg_command(c->wait_id, method, params, session, &len);
	if (!text)
		return fail(err, CDP_FAILED, "%s: out of memory", method);
	free(c->tx);
	c->tx = malloc(LWS_PRE + len);
	if (!c->tx) {
		free(text);
		return fail(err, CDP_FAILED, "%s: out of memory", method);
	}
	memcpy(c->tx + LWS_PRE, text, len);
	free(text);
	c->tx_len = len;
	c->tx_pending = true;
	lws_callback_on_writable(c->wsi);
	service_until(c, answered, NULL, timeout_ms);
	c->tx_pending = false;
	if (!c->reply)
		return fail(err, c->state == CLOSED || c->interrupted ? CDP_FAILED : CDP_TIMEOUT, "%s: %s", method,
			    c->state == CLOSED	   ? c->why
			    : c->interrupted ? c->interrupted
					     : "no answer from Chromium in time");
	error = json_object_get(c->reply, "error");
	if (error) {
		rc = fail(err, CDP_REMOTE, "%s: ", method);
		len = strlen(err->message);
		cdp_msg_error_text(error, err->message + len, sizeof err->message - len);
		err->code = json_integer_value(json_object_get(error, "code"));
	} else {
		res = json_object_get(c->reply, "result");
		if (result)
			*result = json_incref(res);
		rc = CDP_OK;
	}
	json_decref(c->reply);
	c->reply = NULL;
	return rc;
}

void cdp_on_event(struct cdp *c, cdp_event_fn fn, void *arg)
{
	c->on_event = fn;
	c->on_event_arg = arg;
}

void cdp_record(struct cdp *c, bool on)
{
	c->recording = on;
	json_array_clear(c->events);
}

bool cdp_recording(const struct cdp *c)
{
	return c && c->recording;
}

struct wanted {
	cdp_match_fn match;
	void *arg;
	json_t *found;     /* params of the match, or json_null() */
};

/* Consume recorded events up to the first match. */
static bool matched(struct cdp *c, void *arg)
{
	struct wanted *w = arg;

	while (!w->found && json_array_size(c->events) > 0) {
		json_t *e = json_array_get(c->events, 0);
		json_t *params = json_array_get(e, 2);

		if (w->match(json_string_value(json_array_get(e, 0)), json_string_value(json_array_get(e, 1)),
			     json_is_null(params) ? NULL : params, w->arg))
			w->found = json_incref(params);
		json_array_remove(c->events, 0);
	}
	return w->found != NULL;
}

int cdp_wait_event(struct cdp *c, cdp_match_fn match, void *arg, int timeout_ms, json_t **params,
		   struct cdp_error *err)
{
	struct wanted w = { match, arg, NULL };

	*params = NULL;
	if (!matched(c, &w)) {
		if (!cdp_alive(c))
			return fail(err, CDP_FAILED, "%s", *c->why ? c->why : "not connected");
		service_until(c, matched, &w, timeout_ms);
	}
	if (!w.found)
		return fail(err, c->state == CLOSED || c->interrupted ? CDP_FAILED : CDP_TIMEOUT, "%s",
			    c->state == CLOSED	   ? c->why
			    : c->interrupted ? c->interrupted
					     : "the awaited event did not come in time");
	if (json_is_null(w.found))
		json_decref(w.found);
	else
		*params = w.found;
	return CDP_OK;
}
