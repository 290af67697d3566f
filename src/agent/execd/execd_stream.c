#include "agent/execd/execd_stream.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/execd/execd_event.h"
#include "agent/execd/execd_http.h"
#include "agent/execd/execd_lines.h"
#include "agent/execd/execd_proc.h"
#include "agent/core/reaper.h"
#include "lib/timeutil.h"

/* The official execd pings every 3 s; clients and proxies time out on less. */
#define PING_MS 3000
/* One read's worth of events is all that is ever buffered: a small read
 * keeps even a flood of empty lines to a few hundred KiB of JSON. */
#define READ_CHUNK 4096
/* After the exit, read at most this many chunks more: a background child
 * that keeps the pipes open and writing must not hold the reply forever. */
#define DRAIN_CHUNKS 256
/* Blocks MHD asks for at a time. */
#define BLOCK_SIZE (16 * 1024)
#define REAP_WAIT_MS 10000

struct stream {
	const struct ag_ctx *ctx;
	struct ag_proc proc;
	struct ag_watch watch;
	struct ag_cmd *cmd;
	struct ag_buf out;
	struct ag_lines lines[2];
	int64_t started, last_event, deadline;
	int drain_left;
	bool timed_out, done;
};

struct line_sink {
	struct stream *s;
	const char *type;
};

static int on_line(void *cls, const char *line, size_t len, bool ended)
{
	struct line_sink *k = cls;

	k->s->last_event = ax_mono_ms();
	return ag_event_output(&k->s->out, k->type, line, len, ended);
}

static const char *const stream_type[2] = { "stdout", "stderr" };

static int *pipe_fd(struct stream *s, int i)
{
	return i == 0 ? &s->proc.out_fd : &s->proc.err_fd;
}

static void close_pipe(struct stream *s, int i)
{
	int *fd = pipe_fd(s, i);

	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Read once from pipe I: 1 while it stays open, 0 once closed (EOF, or
 * empty after the exit), -1 on ENOMEM. */
static int read_pipe(struct stream *s, int i)
{
	struct line_sink k = { s, stream_type[i] };
	char buf[READ_CHUNK];
	ssize_t n = read(*pipe_fd(s, i), buf, sizeof buf);

	if (n < 0 && (errno == EINTR || (errno == EAGAIN && !s->watch.exited)))
		return 1;
	/* EOF, an error, or empty after the exit: anything written later
	 * would come from a background child, which we do not wait for. */
	if (n <= 0) {
		close_pipe(s, i);
		return 0;
	}
	return ag_lines_feed(&s->lines[i], buf, (size_t)n, on_line, &k) < 0 ? -1 : 1;
}

static int finish(struct stream *s)
{
	int status = s->watch.status, code = ag_exit_code(status), i;
	char text[64], value[16];

	for (i = 0; i < 2; i++) {
		struct line_sink k = { s, stream_type[i] };

		if (ag_lines_flush(&s->lines[i], on_line, &k) < 0)
			return -1;
		close_pipe(s, i);
	}
	ag_exit_text(status, text, sizeof text);
	if (code == 0) {
		ag_cmd_finish(s->cmd, 0, NULL);
		if (ag_event_complete(&s->out, ax_mono_ms() - s->started) < 0)
			return -1;
	} else {
		snprintf(value, sizeof value, "%d", code);
		ag_cmd_finish(s->cmd, code, text);
		if (ag_event_error(&s->out, "CommandExecError", value, text) < 0)
			return -1;
	}
	s->done = true;
	return 0;
}

/* It has exited: pass on what is left in the pipes, then the outcome. */
static int drain(struct stream *s)
{
	int i;

	for (i = 0; i < 2; i++) {
		int fd = *pipe_fd(s, i);

		if (fd < 0)
			continue;
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		if (s->drain_left-- <= 0) {
			close_pipe(s, i);
			continue;
		}
		if (read_pipe(s, i) < 0)
			return -1;
	}
	if (s->proc.out_fd < 0 && s->proc.err_fd < 0)
		return finish(s);
	return 0;
}

static int step(struct stream *s)
{
	int64_t now = ax_mono_ms(), wait;
	bool ready[2];
	int i;

	if (s->watch.exited)
		return drain(s);
	if (s->deadline && now >= s->deadline && !s->timed_out) {
		ag_proc_kill(&s->proc, SIGKILL);
		s->timed_out = true;
	}
	wait = PING_MS - (now - s->last_event);
	if (wait < 0)
		wait = 0;
	if (s->deadline && !s->timed_out && s->deadline - now < wait)
		wait = s->deadline - now;
	if (ag_watch_poll(&s->watch, (int)wait, ready) < 0 || s->watch.hung_up)
		return -1;
	for (i = 0; i < 2; i++)
		if (ready[i] && read_pipe(s, i) < 0)
			return -1;
	if (!ag_buf_pending(&s->out) && ax_mono_ms() - s->last_event >= PING_MS) {
		s->last_event = ax_mono_ms();
		return ag_event_text(&s->out, "ping", "pong", 4);
	}
	return 0;
}

/* MHD's content reader: block until there is something to send. */
static ssize_t read_events(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct stream *s = cls;

	while (!ag_buf_pending(&s->out)) {
		if (s->done)
			return MHD_CONTENT_READER_END_OF_STREAM;
		if (step(s) < 0)
			return MHD_CONTENT_READER_END_WITH_ERROR;
	}
	return (ssize_t)ag_buf_take(&s->out, buf, max);
}

static void stream_free(void *cls)
{
	struct stream *s = cls;
	int i;

	if (!s->done) {
		/* The client went away (or we failed): nobody will see the
		 * output, so stop the command, as the official execd does. */
		if (!s->watch.exited) {
			ag_proc_kill(&s->proc, SIGKILL);
			ag_watch_reap(&s->watch, REAP_WAIT_MS);
		}
		if (!s->watch.exited)
			ag_reaper_forget(s->ctx->reaper, s->proc.pid);
		ag_cmd_finish(s->cmd, ag_exit_code(s->watch.status), "client disconnected");
	}
	ag_watch_close(&s->watch);
	ag_proc_close(&s->proc);
	for (i = 0; i < 2; i++)
		ag_lines_free(&s->lines[i]);
	ag_buf_free(&s->out);
	ag_cmd_put(s->cmd);
	free(s);
}

/* No stream after all: stop the command rather than let it run unseen. */
static void abandon(const struct ag_ctx *ctx, struct ag_proc *proc, struct ag_cmd *cmd)
{
	ag_proc_kill(proc, SIGKILL);
	if (ag_proc_wait(ctx, proc, REAP_WAIT_MS, NULL) != 1)
		ag_reaper_forget(ctx->reaper, proc->pid);
	ag_proc_close(proc);
	ag_cmd_finish(cmd, -1, "out of memory");
	ag_cmd_put(cmd);
}

struct MHD_Response *ag_with_stream_headers(struct MHD_Response *resp)
{
	if (!resp)
		return NULL;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
	/* Proxies such as nginx must pass each event on at once. */
	MHD_add_response_header(resp, "X-Accel-Buffering", "no");
	return resp;
}

/* A whole event stream known in advance; takes B's bytes. */
static struct MHD_Response *fixed_response(struct ag_buf *b)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(b->len, b->data, MHD_RESPMEM_MUST_FREE);

	if (resp)
		memset(b, 0, sizeof *b);	/* MHD owns the bytes now */
	return ag_with_stream_headers(resp);
}

/* The client's socket, to notice at once when it hangs up: otherwise only
 * a failed write (a ping, up to two pings late) would tell. */
int ag_connection_fd(const struct ag_req *req)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(req->conn, MHD_CONNECTION_INFO_CONNECTION_FD);

	return ci ? ci->connect_fd : -1;
}

enum MHD_Result ag_stream_reply(struct ag_req *req, struct ag_proc *proc, struct ag_cmd *cmd, int64_t timeout_ms)
{
	struct stream *s = calloc(1, sizeof *s);
	struct MHD_Response *resp = NULL;
	const char *id = ag_cmd_id(cmd);

	if (!s) {
		abandon(req->ctx, proc, cmd);
		return MHD_NO;
	}
	s->ctx = req->ctx;
	s->proc = *proc;
	s->cmd = cmd;
	ag_watch_init(&s->watch, req->ctx, &s->proc);
	s->watch.hup_fd = ag_connection_fd(req);
	s->started = s->last_event = ax_mono_ms();
	s->deadline = timeout_ms > 0 ? s->started + timeout_ms : 0;
	s->drain_left = DRAIN_CHUNKS;
	if (ag_event_text(&s->out, "init", id, strlen(id)) == 0)
		resp = ag_with_stream_headers(MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, BLOCK_SIZE,
									     read_events, s, stream_free));
	if (!resp) {
		stream_free(s);
		return MHD_NO;
	}
	return ag_reply_queue(req, MHD_HTTP_OK, resp);
}

static enum MHD_Result reply_events(struct ag_req *req, struct ag_buf *b, int ok)
{
	struct MHD_Response *resp = ok ? fixed_response(b) : NULL;

	ag_buf_free(b);
	if (!resp)
		return MHD_NO;
	return ag_reply_queue(req, MHD_HTTP_OK, resp);
}

enum MHD_Result ag_stream_reply_failed(struct ag_req *req, const char *id, const char *message)
{
	struct ag_buf b = { 0 };
	int ok = ag_event_text(&b, "init", id, strlen(id)) == 0 &&
		 ag_event_error(&b, "CommandExecError", message, message) == 0;

	return reply_events(req, &b, ok);
}

enum MHD_Result ag_stream_reply_started(struct ag_req *req, const char *id)
{
	struct ag_buf b = { 0 };
	int ok = ag_event_text(&b, "init", id, strlen(id)) == 0 && ag_event_complete(&b, 0) == 0;

	return reply_events(req, &b, ok);
}
