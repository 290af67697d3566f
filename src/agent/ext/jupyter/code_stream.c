#include "agent/ext/jupyter/code_stream.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "agent/core/log.h"
#include "agent/ext/jupyter/code_event.h"
#include "agent/ext/jupyter/jupyter_exec.h"
#include "lib/timeutil.h"

/* The official execd pings every 3 s; clients and proxies time out on less. */
#define PING_MS 3000
/* How often the connection's thread looks for a hang-up while it waits. */
#define WAKE_MS 200
#define BLOCK_SIZE (16 * 1024)

struct code_run {
	pthread_mutex_t lock;
	pthread_cond_t more;
	char *buf;                      /* events not yet sent: buf[off..len) */
	size_t off, len, cap;
	bool done, failed;              /* failed: ENOMEM, end the stream */
	long long last_event;           /* monotonic ms */
	int interrupt_fd;               /* eventfd the execution watches */
	int client_fd;
	pthread_t thread;
	struct ag_jupyter *j;
	struct jsession *s;
	bool created;
	char *code;
};

/* Append event E (stolen) with its blank line; lock held. */
static void push_locked(struct code_run *r, json_t *e)
{
	char *text = e ? json_dumps(e, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	size_t n = text ? strlen(text) : 0, need;
	char *grown;

	json_decref(e);
	if (!text) {
		r->failed = true;
		return;
	}
	need = r->len - r->off + n + 2;
	if (r->off) {
		memmove(r->buf, r->buf + r->off, r->len - r->off);
		r->len -= r->off;
		r->off = 0;
	}
	if (need > r->cap) {
		grown = realloc(r->buf, need * 2);
		if (!grown) {
			r->failed = true;
			free(text);
			return;
		}
		r->buf = grown;
		r->cap = need * 2;
	}
	memcpy(r->buf + r->len, text, n);
	memcpy(r->buf + r->len + n, "\n\n", 2);
	r->len += n + 2;
	r->last_event = ax_mono_ms();
	free(text);
	pthread_cond_signal(&r->more);
}

static void push(struct code_run *r, json_t *e)
{
	pthread_mutex_lock(&r->lock);
	push_locked(r, e);
	pthread_mutex_unlock(&r->lock);
}

static void on_message(void *cls, const struct jw_msg *m)
{
	json_t *e = ce_from_iopub(m);

	if (e)
		push(cls, e);
}

static void *run_code(void *cls)
{
	struct code_run *r = cls;
	struct jx_watch w = { .client_fd = -1, .interrupt_fd = r->interrupt_fd, .on_message = on_message, .cls = r };
	struct ag_error err = { 0 };
	long long started = ax_mono_ms();
	json_t *result = NULL, *last;
	int rc;

	rc = ag_jupyter_context_run(r->j, r->s, r->code, &w, &result, &err);
	if (rc < 0)
		last = ce_error("RuntimeError", err.message);
	else
		last = ce_final(result, ax_mono_ms() - started);
	json_decref(result);
	ag_jupyter_context_close(r->j, r->s, r->created, rc < 0);
	pthread_mutex_lock(&r->lock);
	push_locked(r, last);
	r->done = true;
	pthread_cond_signal(&r->more);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

static bool client_gone(int fd)
{
	char c;
	ssize_t n;

	if (fd < 0)
		return false;
	n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

static void wait_more(struct code_run *r)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += WAKE_MS * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&r->more, &r->lock, &until);
}

static ssize_t read_events(void *cls, uint64_t pos, char *out, size_t max)
{
	struct code_run *r = cls;
	ssize_t n = 0;

	(void)pos;
	pthread_mutex_lock(&r->lock);
	for (;;) {
		if (r->failed) {
			n = MHD_CONTENT_READER_END_WITH_ERROR;
			break;
		}
		if (r->len > r->off) {
			n = (ssize_t)(r->len - r->off < max ? r->len - r->off : max);
			memcpy(out, r->buf + r->off, (size_t)n);
			r->off += (size_t)n;
			break;
		}
		if (r->done) {
			n = MHD_CONTENT_READER_END_OF_STREAM;
			break;
		}
		if (ax_mono_ms() - r->last_event >= PING_MS) {
			push_locked(r, ce_text("ping", "pong"));
			continue;
		}
		if (client_gone(r->client_fd)) {
			n = MHD_CONTENT_READER_END_WITH_ERROR;
			break;
		}
		wait_more(r);
	}
	pthread_mutex_unlock(&r->lock);
	return n;
}

static void run_free(struct code_run *r)
{
	pthread_cond_destroy(&r->more);
	pthread_mutex_destroy(&r->lock);
	if (r->interrupt_fd >= 0)
		close(r->interrupt_fd);
	free(r->buf);
	free(r->code);
	free(r);
}

/* The reply is over (sent, or the client went away): stop the code if it
 * still runs, and wait for its thread, which owns nothing of the
 * connection. */
static void stream_free(void *cls)
{
	struct code_run *r = cls;
	const uint64_t one = 1;
	bool done;

	pthread_mutex_lock(&r->lock);
	done = r->done;
	pthread_mutex_unlock(&r->lock);
	if (!done) {
		ag_log("code context %s: the client went away: interrupting", ag_jupyter_context_id(r->s));
		if (write(r->interrupt_fd, &one, sizeof one) < 0)
			ag_log("code context: interrupt: %s", strerror(errno));
	}
	pthread_join(r->thread, NULL);
	run_free(r);
}

static struct code_run *run_new(struct ag_jupyter *j, struct jsession *s, bool created, const char *code, int client_fd)
{
	struct code_run *r = calloc(1, sizeof *r);

	if (!r)
		return NULL;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->more, NULL);
	r->j = j;
	r->s = s;
	r->created = created;
	r->client_fd = client_fd;
	r->code = strdup(code);
	r->interrupt_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!r->code || r->interrupt_fd < 0) {
		run_free(r);
		return NULL;
	}
	return r;
}

enum MHD_Result code_stream_reply(struct ag_req *req, struct ag_jupyter *j, struct jsession *s, bool created,
				  const char *code)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(req->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct code_run *r = run_new(j, s, created, code, ci ? ci->connect_fd : -1);
	struct MHD_Response *resp;

	if (!r) {
		ag_jupyter_context_close(j, s, created, true);
		return MHD_NO;
	}
	push(r, ce_text("init", ag_jupyter_context_id(s)));
	if (r->failed || pthread_create(&r->thread, NULL, run_code, r) != 0) {
		ag_jupyter_context_close(j, s, created, true);
		run_free(r);
		return MHD_NO;
	}
	/* From here on R belongs to the response: stream_free ends the thread. */
	resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, BLOCK_SIZE, read_events, r, stream_free);
	if (!resp) {
		stream_free(r);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
	MHD_add_response_header(resp, "X-Accel-Buffering", "no");
	return ag_reply_queue(req, MHD_HTTP_OK, resp);
}
