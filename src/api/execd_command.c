#include "execd_command.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <curl/curl.h>

/* Events are JSON objects separated by blank lines; a "data:" prefix is
 * tolerated (classic SSE), comment and field lines are skipped. */
typedef struct stream {
	const ax_command_events *ev;
	char *buf;
	size_t len, cap;
	char id[128];
	bool terminal;
	int exit_code;
	bool failed;
	ax_error *err;
	struct timespec deadline;
	bool has_deadline;
	volatile sig_atomic_t *stop;
	bool timed_out, interrupted;
} stream;

static int handle_event(stream *s, const char *line, size_t len)
{
	json_t *ev;
	const char *type, *text;
	json_error_t jerr;

	while (len && isspace((unsigned char)*line))
		line++, len--;
	if (!len || line[0] == ':' || strncmp(line, "event:", 6) == 0 || strncmp(line, "id:", 3) == 0 ||
	    strncmp(line, "retry:", 6) == 0)
		return 0;
	if (strncmp(line, "data:", 5) == 0)
		line += 5, len -= 5;
	ev = json_loadb(line, len, 0, &jerr);
	if (!ev) {
		ax_fail(s->err, AX_EXIT_FAILURE, "PROTOCOL", "execd sent an event that is not JSON: %s", jerr.text);
		return -1;
	}
	type = json_string_value(json_object_get(ev, "type"));
	text = json_string_value(json_object_get(ev, "text"));
	if (!type) {
		json_decref(ev);
		return 0;
	}
	if (strcmp(type, "init") == 0 && text) {
		snprintf(s->id, sizeof s->id, "%s", text);
	} else if (strcmp(type, "stdout") == 0 || strcmp(type, "stderr") == 0) {
		if (s->ev->on_output && s->ev->on_output(s->ev->user, type[3] == 'e', text ? text : "",
							  text ? json_string_length(json_object_get(ev, "text")) : 0) < 0) {
			json_decref(ev);
			return -1;
		}
	} else if (strcmp(type, "execution_complete") == 0) {
		s->terminal = true;
		s->exit_code = 0;
	} else if (strcmp(type, "error") == 0) {
		const char *evalue = json_string_value(json_object_get(json_object_get(ev, "error"), "evalue"));
		char *end;
		long code = evalue ? strtol(evalue, &end, 10) : -1;

		s->terminal = true;
		if (evalue && end != evalue && !*end && code >= 0 && code <= 255) {
			s->exit_code = (int)code;
		} else {
			/* Not an exit status: the command could not run at all. */
			const char *ename = json_string_value(json_object_get(json_object_get(ev, "error"), "ename"));

			ax_fail(s->err, AX_EXIT_FAILURE, "EXEC", "%s: %s", ename ? ename : "error",
				evalue ? evalue : "the command failed");
			s->failed = true;
		}
	}
	json_decref(ev);
	return 0;
}

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *user)
{
	stream *s = user;
	size_t n = size * nmemb, start = 0, i;

	if (s->len + n > s->cap) {
		size_t cap = s->cap ? s->cap : 8192;
		char *grown;

		while (cap < s->len + n)
			cap *= 2;
		/* One event is one line of output: bound it so a hostile peer can't exhaust memory. */
		if (cap > 64 * 1024 * 1024) {
			ax_fail(s->err, AX_EXIT_FAILURE, "PROTOCOL", "execd sent an event larger than 64 MiB");
			return 0;
		}
		grown = realloc(s->buf, cap);
		if (!grown)
			return 0;
		s->buf = grown;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, ptr, n);
	s->len += n;
	/* Each event ends with a newline (bare JSON per line, or SSE "data:" lines). */
	for (i = 0; i < s->len; i++) {
		if (s->buf[i] != '\n')
			continue;
		if (handle_event(s, s->buf + start, i - start) < 0)
			return 0;
		start = i + 1;
	}
	memmove(s->buf, s->buf + start, s->len - start);
	s->len -= start;
	return n;
}

static int on_progress(void *user, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	stream *s = user;
	struct timespec now;

	(void)dt, (void)dn, (void)ut, (void)un;
	if (s->stop && *s->stop) {
		s->interrupted = true;
		return 1;
	}
	if (s->has_deadline) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > s->deadline.tv_sec ||
		    (now.tv_sec == s->deadline.tv_sec && now.tv_nsec >= s->deadline.tv_nsec)) {
			s->timed_out = true;
			return 1;
		}
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
	s.ev = ev;
	s.err = err;
	s.stop = run->stop;
	if (run->timeout_ms > 0) {
		clock_gettime(CLOCK_MONOTONIC, &s.deadline);
		s.deadline.tv_sec += run->timeout_ms / 1000;
		s.deadline.tv_nsec += (run->timeout_ms % 1000) * 1000000L;
		if (s.deadline.tv_nsec >= 1000000000L) {
			s.deadline.tv_sec++;
			s.deadline.tv_nsec -= 1000000000L;
		}
		s.has_deadline = true;
	}
	body = json_pack("{s:s}", "command", run->command);
	if (run->cwd)
		json_object_set_new(body, "cwd", json_string(run->cwd));
	/* The server's own limit is a safety net a little beyond ours. */
	if (run->timeout_ms > 0)
		json_object_set_new(body, "timeout", json_integer(run->timeout_ms + 5000));
	payload = json_dumps(body, JSON_COMPACT);
	json_decref(body);
	if (!payload)
		return ax_fail(err, AX_EXIT_FAILURE, "NOMEM", "out of memory");
	if (ax_http_begin(execd, &call, "POST", "/command", err) < 0) {
		free(payload);
		return -1;
	}
	ax_http_add_header(&call, "Content-Type: application/json");
	ax_http_add_header(&call, "Accept: text/event-stream");
	curl_easy_setopt(call.curl, CURLOPT_POSTFIELDS, payload);
	curl_easy_setopt(call.curl, CURLOPT_TIMEOUT, 0L);
	curl_easy_setopt(call.curl, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(call.curl, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(call.curl, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(call.curl, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(call.curl, CURLOPT_XFERINFODATA, &s);
	call.callback_failed = true;
	err->message[0] = '\0';
	if (ax_http_perform(&call, &status, err) < 0 && !s.timed_out && !s.interrupted) {
		if (!err->message[0])
			ax_fail(err, AX_EXIT_FAILURE, "CONNECTION", "the command stream broke off");
		goto out;
	}
	if (s.timed_out || s.interrupted) {
		ax_http_end(&call);
		if (s.id[0])
			interrupt_command(execd, s.id);
		*end = s.timed_out ? AX_COMMAND_TIMED_OUT : AX_COMMAND_INTERRUPTED;
		rc = 0;
		goto done;
	}
	if (status != 200) {
		json_t *e = json_loadb(s.buf ? s.buf : "", s.len, 0, NULL);
		const char *msg = json_string_value(json_object_get(e, "message"));

		ax_fail(err, AX_EXIT_FAILURE, "EXECD", "execd error (%ld): %s", status,
			msg ? msg : (s.len ? "unexpected answer" : "empty answer"));
		json_decref(e);
		goto out;
	}
	/* A last event without a trailing newline still counts. */
	if (s.len && handle_event(&s, s.buf, s.len) < 0)
		goto out;
	if (s.failed)
		goto out;
	if (!s.terminal) {
		ax_fail(err, AX_EXIT_FAILURE, "PROTOCOL", "the command's output stream ended without an exit status");
		goto out;
	}
	*end = AX_COMMAND_EXITED;
	*exit_code = s.exit_code;
	rc = 0;
out:
	ax_http_end(&call);
done:
	free(payload);
	free(s.buf);
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
