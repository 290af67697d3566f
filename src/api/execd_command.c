#include "api/execd_command.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/timeutil.h"

/* One POST /command: the event decoder plus the caller's deadline and stop flag. */
typedef struct stream {
	ax_event_decoder dec;
	int64_t deadline_ms;    /* ax_mono_ms(); 0: none */
	volatile sig_atomic_t *stop;
	bool timed_out, interrupted;
} stream;

static size_t on_data(char *ptr, size_t n, void *user)
{
	stream *s = user;

	return ax_event_decoder_feed(&s->dec, ptr, n) < 0 ? 0 : n;
}

static int on_progress(void *user, unsigned long long down, long long down_total, unsigned long long up)
{
	stream *s = user;

	(void)down, (void)down_total, (void)up;
	if (s->stop && *s->stop) {
		s->interrupted = true;
		return 1;
	}
	if (s->deadline_ms && ax_mono_ms() >= s->deadline_ms) {
		s->timed_out = true;
		return 1;
	}
	return 0;
}

/* Best effort: the command must not outlive the caller's interest in it. */
static void interrupt_command(ax_http *execd, const char *id)
{
	char *eid = ax_http_escape(id), *path = NULL;
	ax_http_response r;
	ax_error ignored;

	if (eid && asprintf(&path, "/command?id=%s", eid) >= 0 &&
	    ax_http_request(execd, "DELETE", path, NULL, &r, &ignored) == 0)
		ax_http_response_free(&r);
	free(path);
	free(eid);
}

int ax_execd_run(ax_http *execd, const ax_command_run *run, const ax_command_events *ev, ax_command_end *end,
		 int *exit_code, ax_error *err)
{
	ax_http_call call;
	stream s;
	json_t *body;
	char *payload = NULL;
	long status = 0;
	int rc = -1;

	memset(&s, 0, sizeof s);
	ax_event_decoder_init(&s.dec, ev, err);
	s.stop = run->stop;
	if (run->timeout_ms > 0)
		s.deadline_ms = ax_mono_ms() + run->timeout_ms;
	body = json_pack("{s:s}", "command", run->command);
	if (run->cwd)
		json_object_set_new(body, "cwd", json_string(run->cwd));
	/* The server's own limit is a safety net a little beyond ours. */
	if (run->timeout_ms > 0)
		json_object_set_new(body, "timeout", json_integer(run->timeout_ms + 5000));
	payload = json_dumps(body, JSON_COMPACT);
	json_decref(body);
	if (!payload)
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	if (ax_http_begin(execd, &call, "POST", "/command", err) < 0) {
		free(payload);
		return -1;
	}
	ax_http_add_header(&call, "Content-Type: application/json");
	ax_http_add_header(&call, "Accept: text/event-stream");
	ax_http_set_payload(&call, payload, strlen(payload));
	call.timeout_s = 0;
	call.write_cb = on_data;
	call.write_data = &s;
	call.progress_cb = on_progress;
	call.progress_data = &s;
	call.callback_failed = true;
	err->message[0] = '\0';
	if (ax_http_perform(&call, &status, err) < 0 && !s.timed_out && !s.interrupted) {
		if (!err->message[0])
			ax_fail(err, AX_CODE_CONNECTION, "the command stream broke off");
		goto out;
	}
	if (s.timed_out || s.interrupted) {
		ax_http_end(&call);
		if (s.dec.id[0])
			interrupt_command(execd, s.dec.id);
		*end = s.timed_out ? AX_COMMAND_TIMED_OUT : AX_COMMAND_INTERRUPTED;
		rc = 0;
		goto done;
	}
	if (status != 200) {
		json_t *e = json_loadb(s.dec.buf ? s.dec.buf : "", s.dec.len, 0, NULL);
		const char *msg = json_string_value(json_object_get(e, "message"));

		ax_fail(err, AX_CODE_EXECD, "execd error (%ld): %s", status,
			msg ? msg : (s.dec.len ? "unexpected answer" : "empty answer"));
		json_decref(e);
		goto out;
	}
	if (ax_event_decoder_finish(&s.dec) < 0)
		goto out;
	if (s.dec.failed)
		goto out;
	if (!s.dec.terminal) {
		ax_fail(err, AX_CODE_PROTOCOL, "the command's output stream ended without an exit status");
		goto out;
	}
	*end = AX_COMMAND_EXITED;
	*exit_code = s.dec.exit_code;
	rc = 0;
out:
	ax_http_end(&call);
done:
	free(payload);
	ax_event_decoder_free(&s.dec);
	return rc;
}

static bool needs_quotes(const char *w)
{
	if (!*w)
		return true;
	for (; *w; w++)
		if (!isalnum((unsigned char)*w) && !strchr("@%+=:,./-_", *w))
			return true;
	return false;
}

char *ax_shell_join(const char *const *words, size_t n)
{
	size_t i, cap = 1;
	char *out, *p;

	if (n == 1)
		return strdup(words[0]);
	for (i = 0; i < n; i++)
		cap += strlen(words[i]) * 4 + 3;
	out = malloc(cap);
	if (!out)
		return NULL;
	p = out;
	for (i = 0; i < n; i++) {
		const char *w = words[i];

		if (i)
			*p++ = ' ';
		if (!needs_quotes(w)) {
			p = stpcpy(p, w);
			continue;
		}
		/* 'it'\''s' : close, escaped quote, reopen. */
		*p++ = '\'';
		for (; *w; w++) {
			if (*w == '\'')
				p = stpcpy(p, "'\\''");
			else
				*p++ = *w;
		}
		*p++ = '\'';
	}
	*p = '\0';
	return out;
}
