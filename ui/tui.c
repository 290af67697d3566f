/*
 * The allox> screen's loop: poll the terminal, the running command's pipe and
 * the refresher's pipe; turn keys into readline input or pane actions; draw
 * when something changed. Commands and refreshes are child processes (see
 * job.h), so no thread ever touches curses or readline.
 */
#include "ui/tui.h"

#include <errno.h>
#include <langinfo.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <readline/history.h>

#include "lib/timeutil.h"


void ax_set_str(char **slot, const char *v)
{
	free(*slot);
	*slot = v ? strdup(v) : NULL;
}

static void job_start(ax_tui *t, ax_words *w, const char *line)
{
	char cols[16];
	ax_error err;

	snprintf(cols, sizeof cols, "%d", t->lay.output.w > 0 ? t->lay.output.w : 80);
	ax_outbuf_line(&t->out, "%s%s", AX_SHELL_PROMPT, line);
	t->out.scroll = 0;
	if (ax_job_start(&t->sh->exec, w->v, w->n, true, cols, &t->job, &err) < 0) {
		ax_outbuf_line(&t->out, "Error: %s", err.message);
		ax_shell_finished(t->sh, AX_EXIT_FAILURE, 0);
		return;
	}
	t->job_interrupts = 0;
	ax_set_str(&t->job_line, line);
}

static void job_read(ax_tui *t)
{
	char buf[8192];
	int status, reads;

	/* A bounded slice per turn, so a command that floods its output cannot
	 * starve the keyboard. */
	for (reads = 0;; reads++) {
		ssize_t got;

		if (reads == 64)
			return;
		got = read(t->job.fd, buf, sizeof buf);
		if (got > 0) {
			ax_outbuf_append(&t->out, buf, (size_t)got);
			continue;
		}
		if (got < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		break;
	}
	{
		double secs = ax_job_seconds(&t->job);

		ax_job_reap(&t->job, true, &status);
		ax_shell_finished(t->sh, status, secs);
		if (t->out.open)
			ax_outbuf_append(&t->out, "\n", 1);
		if (status)
			ax_outbuf_line(&t->out, "%s exit %d (%.2fs)", t->utf8 ? "\u2717" : "x", status, secs);
	}
	/* A command may have created, used or ended a sandbox: look now. */
	if (!t->refresh_stage)
		t->next_refresh = 0;
}

static void print_history(ax_tui *t)
{
	int i;

	for (i = 0; i < history_length; i++) {
		HIST_ENTRY *h = history_get(history_base + i);

		if (h)
			ax_outbuf_line(&t->out, "%5d  %s", history_base + i, h->line);
	}
}

int ax_tui_run_line(ax_tui *t, char *line)
{
	ax_words w;
	ax_error err;

	ax_shell_history_add(t->sh, line);
	if (t->job.pid) {
		ax_outbuf_line(&t->out, "A command is running (Ctrl-C cancels it); '%s' is in the history.", line);
		return AX_REDRAW;
	}
	ax_error_clear(&err);
	switch (ax_shell_classify(t->sh, line, &w, &err)) {
	case AX_LINE_EMPTY:
		break;
	case AX_LINE_HISTORY:
		print_history(t);
		break;
	case AX_LINE_CLEAR:
		ax_outbuf_clear(&t->out);
		break;
	case AX_LINE_EXIT:
		return AX_QUIT;
	case AX_LINE_ERROR:
		ax_outbuf_line(&t->out, "%s%s", AX_SHELL_PROMPT, line);
		ax_outbuf_line(&t->out, "Error: %s", err.message);
		ax_shell_finished(t->sh, err.exit_code ? err.exit_code : AX_EXIT_USAGE, 0);
		break;
	case AX_LINE_RUN:
		job_start(t, &w, line);
		ax_words_free(&w);
		break;
	}
	return AX_REDRAW;
}

/* Run WORDS as if typed (pane actions), shown in the output as a line. */

/* ---- setup and loop ---- */

static void start_screen(ax_tui *t)
{
	const char *v;

	t->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	set_escdelay(25);
	initscr();
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	t->colors = has_colors() && !getenv("NO_COLOR") && !t->sh->ctx->globals->flags.no_color;
	if (t->colors) {
		start_color();
		use_default_colors();
	}
	refresh();
	ax_tui_windows(t);
	v = getenv("ALLOX_TUI_DUMP");
	t->dump_path = v && *v ? v : NULL;
}

static void init_state(ax_tui *t, ax_shell *sh)
{
	const char *v = getenv("ALLOX_TUI_REFRESH");
	const ax_config *cfg = sh->ctx->config;
	const char *domain = cfg ? ax_config_string(cfg, "domain") : NULL;
	char ep[256];

	memset(t, 0, sizeof *t);
	t->sh = sh;
	ax_outbuf_init(&t->out);
	t->refresh_interval = v && atof(v) > 0 ? atof(v) : 3.0;
	t->profile = sh->ctx->globals->profile ? sh->ctx->globals->profile : "default";
	snprintf(ep, sizeof ep, "%s (%s)", domain ? domain : "local", t->profile);
	t->endpoint = strdup(ep);
	ax_catalog_read_session(&sh->catalog, sh->ctx->home);
	ax_tui_follow_current(t);
}

int ax_shell_tui(ax_shell *sh)
{
	ax_tui t;
	int flags = AX_REDRAW;

	sh->interactive = true;
	init_state(&t, sh);
	ax_shell_history_load(sh);
	start_screen(&t);
	ax_rl_start(&t);
	ax_outbuf_line(&t.out, "Type a command (Tab completes), ? for the keys, exit or Ctrl-D to leave.");
	while (!(flags & AX_QUIT)) {
		struct pollfd p[3];
		int np = 1, timeout, key;
		double wait;

		if (flags & AX_RELAYOUT)
			ax_tui_windows(&t);
		if (flags)
			ax_tui_draw(&t);
		flags = 0;
		if (!t.refresh_stage && ax_mono_s() >= t.next_refresh)
			ax_refresh_start(&t);
		p[0].fd = STDIN_FILENO;
		p[0].events = POLLIN;
		if (t.job.pid) {
			p[np].fd = t.job.fd;
			p[np++].events = POLLIN;
		}
		if (t.refresh_stage) {
			p[np].fd = t.refresher.job.fd;
			p[np++].events = POLLIN;
		}
		wait = t.refresh_stage ? 1.0 : t.next_refresh - ax_mono_s();
		timeout = wait <= 0 ? 0 : wait > 1.0 ? 1000 : (int)(wait * 1000);
		if (poll(p, (nfds_t)np, timeout) < 0 && errno != EINTR)
			break;
		/* SIGWINCH interrupts poll; curses reports it as KEY_RESIZE. */
		while ((key = getch()) != ERR) {
			flags |= ax_tui_on_key(&t, key);
			if (t.eof)
				flags |= AX_QUIT;
			if (t.pending_line) {
				char *line = t.pending_line;

				t.pending_line = NULL;
				flags |= ax_tui_run_line(&t, line);
				free(line);
			}
			if (flags & AX_QUIT)
				break;
		}
		if (t.job.pid && np > 1 && p[1].revents) {
			job_read(&t);
			flags |= AX_REDRAW;
		}
		if (t.refresh_stage && p[np - 1].fd == t.refresher.job.fd && p[np - 1].revents) {
			ax_refresh_read(&t);
			flags |= AX_REDRAW;
		}
		/* The status line counts the running command's seconds. */
		if (t.job.pid)
			flags |= AX_REDRAW;
	}
	if (t.job.pid) {
		int status;

		kill(t.job.pid, SIGTERM);
		ax_job_reap(&t.job, true, &status);
	}
	if (t.refresh_stage) {
		int status;

		kill(t.refresher.job.pid, SIGTERM);
		ax_job_reap(&t.refresher.job, true, &status);
	}
	ax_rl_stop();
	ax_tui_windows_free(&t);
	endwin();
	ax_outbuf_free(&t.out);
	free(t.refresher.buf);
	free(t.selected);
	free(t.seen_current);
	free(t.job_line);
	free(t.confirm_id);
	free(t.pending_line);
	free(t.endpoint);
	return sh->exit_status;
}
