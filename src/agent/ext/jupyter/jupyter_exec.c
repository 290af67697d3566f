#include "agent/ext/jupyter/jupyter_exec.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "agent/ext/jupyter/jupyter_outputs.h"
#include "agent/core/log.h"
#include "lib/timeutil.h"

/* After interrupt_request, how long before SIGINT; after SIGINT, how long
 * before the kernel is given up and killed. Killing loses every variable of
 * the context, so the graces are generous: on a loaded machine a kernel
 * that has been interrupted took over 2 s to say so. */
#define ASK_GRACE_MS 2000
#define SIGNAL_GRACE_MS 5000
/* The idle status follows the reply within milliseconds; should it never
 * come (dropped by a kernel's full queue), the reply alone ends the wait. */
#define IDLE_AFTER_REPLY_MS 2000
/* How often a request the kernel aborted unrun is sent again. */
#define ABORTED_RESENDS 3

enum phase {
	RUNNING,
	ASKED,          /* interrupt_request sent */
	SIGNALLED,      /* SIGINT sent */
};

struct exec_state {
	struct jk_kernel *k;
	const char *msg_id;
	const struct jx_watch *w;
	bool replied, idle, timed_out, abandoned;
	bool interrupted;       /* asked to by the watch's interrupt_fd */
	bool interrupt_acked;   /* the kernel answered our interrupt_request */
	char interrupt_id[JC_ID_SIZE];
	char reply_status[16];
	json_t *execution_count;
	struct jo_outputs outs;
};

const char *jx_status_name(enum jx_status s)
{
	switch (s) {
	case JX_OK:
		return "ok";
	case JX_TIMEOUT:
		return "timeout";
	case JX_ERROR:
		break;
	}
	return "error";
}

static void on_shell(struct exec_state *st, const struct jw_msg *m)
{
	if (strcmp(m->parent_id, st->msg_id) != 0 || strcmp(m->msg_type, "execute_reply") != 0)
		return;
	st->replied = true;
	snprintf(st->reply_status, sizeof st->reply_status, "%s",
		 json_string_value(json_object_get(m->content, "status")) ?: "error");
	json_decref(st->execution_count);
	st->execution_count = json_object_get(m->content, "execution_count");
	/* An aborted reply has none, whatever the spec says. */
	st->execution_count = json_is_integer(st->execution_count) ? json_incref(st->execution_count) : json_null();
}

static void on_iopub(struct exec_state *st, const struct jw_msg *m)
{
	const char *state;

	if (strcmp(m->parent_id, st->msg_id) != 0)
		return;
	if (strcmp(m->msg_type, "status") == 0) {
		state = json_string_value(json_object_get(m->content, "execution_state"));
		if (state && strcmp(state, "idle") == 0)
			st->idle = true;
	} else if (!st->timed_out) {
		jo_take(&st->outs, m);
		if (st->w->on_message)
			st->w->on_message(st->w->cls, m);
	}
}

/* An interrupt_reply means the kernel has interrupted itself (ipykernel
 * signals its own process): a SIGINT of ours on top could arrive after this
 * execution ended and interrupt the next one instead. */
static void on_control(struct exec_state *st, const struct jw_msg *m)
{
	if (st->interrupt_id[0] && strcmp(m->parent_id, st->interrupt_id) == 0 &&
	    strcmp(m->msg_type, "interrupt_reply") == 0)
		st->interrupt_acked = true;
}

/* Take every message waiting on SOCK. */
static void drain(struct exec_state *st, void *sock)
{
	struct jw_msg m;
	const char *why;
	int rc;

	while ((rc = jc_recv(sock, st->k->key, &m, &why)) != 0) {
		if (rc < 0) {
			ag_log("kernel %s: dropped a message: %s", st->k->name, why);
			continue;
		}
		if (sock == st->k->shell)
			on_shell(st, &m);
		else if (sock == st->k->iopub)
			on_iopub(st, &m);
		else
			on_control(st, &m);
		jw_msg_free(&m);
	}
}

/* The next step once the current one's time is up: ask, signal, give up.
 * False when the kernel was killed. */
static bool escalate(struct exec_state *st, enum phase *phase, long long *deadline)
{
	struct jk_kernel *k = st->k;

	if (*phase == RUNNING) {
		st->timed_out = !st->interrupted;
		*phase = ASKED;
		*deadline = ax_mono_ms() + ASK_GRACE_MS;
		if (jc_send(k->control, k->key, k->session, "interrupt_request", NULL, st->interrupt_id) == 0)
			return true;
		st->interrupt_id[0] = '\0';
	}
	if (*phase == ASKED && st->interrupt_acked) {
		/* Interrupted already, just slow (a loaded machine): wait, don't signal. */
		*phase = SIGNALLED;
		*deadline = ax_mono_ms() + SIGNAL_GRACE_MS;
		return true;
	}
	if (*phase == ASKED && !k->interrupt_message) {
		ag_log("kernel %s: no answer to interrupt_request: sending SIGINT", k->name);
		jl_signal(&k->proc, SIGINT);
		*phase = SIGNALLED;
		*deadline = ax_mono_ms() + SIGNAL_GRACE_MS;
		return true;
	}
	ag_log("kernel %s: still busy after being interrupted: killing it", k->name);
	jk_kernel_kill(k);
	return false;
}

/* silent must be there: without it ipykernel 6 never replies. stop_on_error
 * is off because requests reach a kernel one at a time here, so there is no
 * queue to abort; with it on, ipykernel aborts whatever arrives before it
 * has processed its own end-of-abort event, and the next request, sent the
 * moment the failed one went idle, could land there on a busy machine. */
static json_t *execute_content(const char *code)
{
	return json_pack("{s:s, s:b, s:b, s:{}, s:b, s:b}", "code", code, "silent", 0, "store_history", 1,
			 "user_expressions", "allow_stdin", 0, "stop_on_error", 0);
}

/* The kernel skipped the request without running any of it: a kernel that
 * aborts after errors whatever stop_on_error says. Sending it again is safe. */
static bool aborted_unrun(const struct exec_state *st)
{
	return st->replied && !st->timed_out && !st->abandoned && strcmp(st->reply_status, "aborted") == 0;
}

/* The HTTP client closed its end (EOF or an error). Bytes it sent are not
 * a hang-up: the caller stops watching then, as polling would spin. */
static bool client_gone(int fd, bool *watch)
{
	char c;
	ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);

	if (n > 0)
		*watch = false;
	return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

/* The watch's interrupt_fd fired: consume it; true the first time. */
static bool interrupt_asked(struct exec_state *st)
{
	uint64_t n;

	if (read(st->w->interrupt_fd, &n, sizeof n) < 0 || st->interrupted)
		return false;
	st->interrupted = true;
	return true;
}

/* Wait for the end of ST's request. True when it ended, false when the
 * kernel died or was killed. */
static bool await_end(struct exec_state *st, int timeout_ms)
{
	struct jk_kernel *k = st->k;
	int client_fd = st->w->client_fd;
	zmq_pollitem_t items[6] = {
		{ k->shell, 0, ZMQ_POLLIN, 0 },
		{ k->iopub, 0, ZMQ_POLLIN, 0 },
		{ k->control, 0, ZMQ_POLLIN, 0 },
		{ NULL, k->proc.pidfd, ZMQ_POLLIN, 0 },
		{ NULL, st->w->interrupt_fd, st->w->interrupt_fd >= 0 ? ZMQ_POLLIN : 0, 0 },
		{ NULL, client_fd, ZMQ_POLLIN, 0 },
	};
	long long deadline = ax_mono_ms() + timeout_ms, replied_at = 0, until, left;
	enum phase phase = RUNNING;
	bool watch = client_fd >= 0;

	for (;;) {
		drain(st, k->shell);
		drain(st, k->iopub);
		drain(st, k->control);
		if (st->replied && !replied_at)
			replied_at = ax_mono_ms();
		if (st->replied && st->idle)
			return true;
		until = replied_at ? replied_at + IDLE_AFTER_REPLY_MS : deadline;
		left = until - ax_mono_ms();
		if (left <= 0 && replied_at)
			return true;
		if (left <= 0) {
			if (!escalate(st, &phase, &deadline))
				return false;
			continue;
		}
		if (zmq_poll(items, watch ? 6 : 5, (long)left) < 0 && errno != EINTR)
			return false;
		if (items[3].revents & ZMQ_POLLIN) {
			/* What it said before it died still counts. */
			drain(st, k->shell);
			drain(st, k->iopub);
			return false;
		}
		if ((items[4].revents & ZMQ_POLLIN) && interrupt_asked(st) && phase == RUNNING && !st->replied) {
			ag_log("kernel %s: interrupted on request", k->name);
			deadline = ax_mono_ms();
			continue;
		}
		if (watch && (items[5].revents & (ZMQ_POLLIN | ZMQ_POLLERR)) && client_gone(client_fd, &watch)) {
			ag_log("kernel %s: the client went away: interrupting", k->name);
			st->abandoned = true;
			watch = false;
			if (phase == RUNNING) {
				deadline = ax_mono_ms();
				continue;
			}
		}
	}
}

int jx_execute(struct jk_kernel *k, const char *code, int timeout_ms, const struct jx_watch *w, struct jx_run *run,
	       struct ag_error *err)
{
	static const struct jx_watch none = { .client_fd = -1, .interrupt_fd = -1 };
	struct exec_state st = { .k = k, .w = w ? w : &none };
	char why[128], note[512];
	bool ended;
	long long deadline = ax_mono_ms() + timeout_ms, left;
	int sends = 0;

	memset(run, 0, sizeof *run);
	st.msg_id = run->msg_id;
	jo_init(&st.outs);
	do {
		if (sends++) {
			ag_log("kernel %s: request %s aborted unrun: sending it again", k->name, run->msg_id);
			st.replied = st.idle = false;
		}
		if (jc_send(k->shell, k->key, k->session, "execute_request", execute_content(code), run->msg_id) < 0) {
			jo_free(&st.outs);
			json_decref(st.execution_count);
			return ag_fail(err, 500, "kernel %s: cannot send execute_request: %s", k->name,
				       strerror(errno));
		}
		left = deadline - ax_mono_ms();
		ended = await_end(&st, left > 0 ? (int)left : 0);
	} while (ended && aborted_unrun(&st) && sends <= ABORTED_RESENDS);
	if (!ended) {
		run->kernel_lost = true;
		if (st.timed_out)
			snprintf(note, sizeof note,
				 "The kernel did not stop when interrupted after the %d s timeout and was shut down; "
				 "its state is lost. The next call starts a fresh kernel.",
				 timeout_ms / 1000);
		else if (st.interrupted)
			snprintf(note, sizeof note,
				 "The kernel did not stop when interrupted and was shut down; its state is lost. "
				 "The next call starts a fresh kernel.");
		else if (jk_kernel_dead(k, why, sizeof why))
			snprintf(note, sizeof note,
				 "The kernel died (%s) while running this code; its state is lost. The next call "
				 "starts a fresh kernel.", why);
		else
			snprintf(note, sizeof note, "Lost the kernel: %s. The next call starts a fresh kernel.",
				 zmq_strerror(zmq_errno()));
		jo_add_error(&st.outs, "DeadKernelError", note);
	}
	if (st.timed_out)
		run->status = JX_TIMEOUT;
	else if (ended && strcmp(st.reply_status, "ok") == 0)
		run->status = JX_OK;
	else
		run->status = JX_ERROR;
	run->outputs = jo_result(&st.outs);
	run->execution_count = st.execution_count ? st.execution_count : json_null();
	jo_free(&st.outs);
	return 0;
}

void jx_run_free(struct jx_run *run)
{
	json_decref(run->outputs);
	json_decref(run->execution_count);
	run->outputs = run->execution_count = NULL;
}
