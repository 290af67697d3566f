/*
 * The allox> screen's loop: poll the terminal, the running command's pipe and
 * the refresher's pipe; turn keys into readline input or pane actions; draw
 * when something changed. Commands and refreshes are child processes (see
 * job.h), so no thread ever touches curses or readline.
 */
#include "tui.h"

#include <errno.h>
#include <langinfo.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <readline/history.h>
#include <readline/readline.h>

#define KEY_CTRL(c) ((c) & 0x1f)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void set_str(char **slot, const char *v)
{
	free(*slot);
	*slot = v ? strdup(v) : NULL;
}

/* ---- the refresher: sandbox list, then checkpoint list --all ---- */

static void refresh_start(ax_tui *t)
{
	int n;
	char *const *words = ax_catalog_list_words(t->refresh_stage == 0, &n);
	ax_error err;

	t->refresher.len = 0;
	if (ax_job_start(&t->sh->exec, words, n, true, NULL, &t->refresher.job, &err) < 0) {
		t->refresh_stage = 0;
		t->next_refresh = now_s() + t->refresh_interval;
		set_str(&t->sh->catalog.error, err.message);
		return;
	}
	t->refresh_stage++;
}

static bool read_into(ax_pipe_reader *r)
{
	for (;;) {
		ssize_t got;

		if (r->len + 4096 + 1 > r->cap) {
			size_t cap = r->cap ? r->cap * 2 : 16384;
			char *b = realloc(r->buf, cap);

			if (!b)
				return false;
			r->buf = b;
			r->cap = cap;
		}
		got = read(r->job.fd, r->buf + r->len, 4096);
		if (got > 0) {
			r->len += (size_t)got;
			continue;
		}
		return got == 0; /* EOF: the child is done writing */
	}
}

/* The selected sandbox follows the current session when that changes. */
static void follow_current(ax_tui *t)
{
	const char *cur = t->sh->catalog.current;
	size_t i;
	json_t *row;

	if ((cur == NULL) == (t->seen_current == NULL) && (!cur || !strcmp(cur, t->seen_current)))
		return;
	set_str(&t->seen_current, cur);
	if (!cur)
		return;
	set_str(&t->selected, cur);
	json_array_foreach(t->sh->catalog.sandboxes, i, row)
		if (!strcmp(json_string_value(json_object_get(row, "id")) ?: "", cur))
			t->sel_session = (int)i;
}

static void sync_selected(ax_tui *t)
{
	const json_t *row = json_array_get(t->sh->catalog.sandboxes, (size_t)t->sel_session);
	const char *id = json_string_value(json_object_get(row, "id"));

	if (id && (!t->selected || strcmp(id, t->selected) != 0)) {
		set_str(&t->selected, id);
		t->sel_checkpoint = t->top_checkpoint = 0;
	}
}

static void refresh_read(ax_tui *t)
{
	int status;

	if (!read_into(&t->refresher))
		return;
	ax_job_reap(&t->refresher.job, true, &status);
	t->refresher.buf[t->refresher.len] = '\0';
	ax_catalog_take(&t->sh->catalog, t->refresh_stage == 1, t->refresher.buf, status);
	if (t->refresh_stage == 1) {
		refresh_start(t);
		return;
	}
	t->refresh_stage = 0;
	ax_catalog_read_session(&t->sh->catalog, t->sh->ctx->home);
	follow_current(t);
	if (!t->selected || !t->sh->catalog.current || strcmp(t->selected, t->sh->catalog.current) != 0)
		sync_selected(t);
	t->next_refresh = now_s() + t->refresh_interval;
}

/* ---- the running command ---- */

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
	set_str(&t->job_line, line);
}

static void job_read(ax_tui *t)
{
	char buf[8192];
	int status;

	for (;;) {
		ssize_t got = read(t->job.fd, buf, sizeof buf);

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

static int run_line(ax_tui *t, char *line)
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
static int run_words(ax_tui *t, const char *a, const char *b, const char *c)
{
	char line[256];

	snprintf(line, sizeof line, "%s %s %s", a, b, c);
	return run_line(t, line);
}

/* ---- keys ---- */

static int feed_key(int key)
{
	static const struct {
		int key;
		const char *seq;
	} map[] = {
		{ KEY_LEFT, "\033[D" }, { KEY_RIGHT, "\033[C" }, { KEY_UP, "\033[A" }, { KEY_DOWN, "\033[B" },
		{ KEY_HOME, "\033[H" }, { KEY_END, "\033[F" }, { KEY_DC, "\033[3~" }, { KEY_BACKSPACE, "\177" },
		{ KEY_ENTER, "\r" },
	};
	size_t i;
	char c[4];

	if (key >= 0 && key < 256) {
		/* A UTF-8 character goes to readline whole: it reads the rest of a
		 * multibyte character at once and would get NULs from an empty queue. */
		int n = key >= 0xf0 ? 4 : key >= 0xe0 ? 3 : key >= 0xc0 ? 2 : 1, k = 1;

		c[0] = (char)key;
		while (k < n) {
			int more = getch();

			if (more == ERR || (more & 0xc0) != 0x80) {
				if (more != ERR)
					ungetch(more);
				break;
			}
			c[k++] = (char)more;
		}
		ax_rl_feed(c, (size_t)k);
		return AX_REDRAW;
	}
	for (i = 0; i < sizeof map / sizeof map[0]; i++)
		if (map[i].key == key) {
			ax_rl_feed(map[i].seq, strlen(map[i].seq));
			return AX_REDRAW;
		}
	return 0;
}

static int scroll_output(ax_tui *t, int rows)
{
	t->out.scroll += rows;
	if (t->out.scroll < 0)
		t->out.scroll = 0;
	return AX_REDRAW; /* drawing clamps the top */
}

static int pane_enter(ax_tui *t)
{
	if (t->focus == AX_FOCUS_SESSIONS) {
		const json_t *row = json_array_get(t->sh->catalog.sandboxes, (size_t)t->sel_session);
		const char *id = json_string_value(json_object_get(row, "id"));

		return id ? run_words(t, "session", "use", id) : 0;
	}
	if (t->focus == AX_FOCUS_CHECKPOINTS) {
		json_t *rows = json_array();

		ax_tui_checkpoint_rows(t, rows);
		set_str(&t->confirm_id, json_string_value(json_object_get(json_array_get(rows,
			(size_t)t->sel_checkpoint), "id")));
		json_decref(rows);
		return AX_REDRAW;
	}
	return 0;
}

static int pane_key(ax_tui *t, int key)
{
	int *sel = t->focus == AX_FOCUS_SESSIONS ? &t->sel_session : &t->sel_checkpoint;

	switch (key) {
	case KEY_UP:
	case 'k':
		if (t->focus == AX_FOCUS_OUTPUT)
			return scroll_output(t, 1);
		(*sel)--;
		break;
	case KEY_DOWN:
	case 'j':
		if (t->focus == AX_FOCUS_OUTPUT)
			return scroll_output(t, -1);
		(*sel)++;
		break;
	case KEY_HOME:
		if (t->focus == AX_FOCUS_OUTPUT)
			return scroll_output(t, 1 << 28);
		*sel = 0;
		break;
	case KEY_END:
		if (t->focus == AX_FOCUS_OUTPUT)
			return scroll_output(t, -(1 << 28));
		*sel = 1 << 28;
		break;
	case '\r':
	case '\n':
	case KEY_ENTER:
		return pane_enter(t);
	default:
		if (key >= ' ' && key < 256 && key != 127) {
			/* Typing on a pane types on the command line. */
			t->focus = AX_FOCUS_CMDLINE;
			return feed_key(key);
		}
		return 0;
	}
	if (t->focus == AX_FOCUS_SESSIONS) {
		int n = (int)json_array_size(t->sh->catalog.sandboxes);

		if (*sel >= n)
			*sel = n - 1;
		if (*sel < 0)
			*sel = 0;
		sync_selected(t);
	}
	return AX_REDRAW;
}

static int interrupt(ax_tui *t)
{
	if (!t->job.pid) {
		ax_rl_clear_line();
		return AX_REDRAW;
	}
	/* Like a terminal's ^C: the command's handler stops the remote command
	 * and exits 130. A command that ignores it is ended on the third. */
	kill(t->job.pid, ++t->job_interrupts >= 3 ? SIGKILL : SIGINT);
	ax_outbuf_line(&t->out, "^C");
	return AX_REDRAW;
}

static int on_key(ax_tui *t, int key)
{
	int page = t->lay.output.h > 2 ? t->lay.output.h - 2 : 1;

	if (key == KEY_RESIZE)
		return AX_RELAYOUT;
	if (t->help) {
		t->help = false;
		return AX_REDRAW;
	}
	if (t->confirm_id) {
		char *id = t->confirm_id;
		int r = AX_REDRAW;

		t->confirm_id = NULL;
		if (key == 'y' || key == 'Y')
			r = run_words(t, "checkpoint", "restore", id);
		free(id);
		return r;
	}
	switch (key) {
	case KEY_CTRL('c'):
		return interrupt(t);
	case KEY_CTRL('l'):
		clearok(curscr, TRUE);
		return AX_REDRAW;
	case KEY_PPAGE:
		return scroll_output(t, page);
	case KEY_NPAGE:
		return scroll_output(t, -page);
	case KEY_F(1):
		t->help = true;
		return AX_REDRAW;
	case KEY_F(2):
		t->focus = AX_FOCUS_SESSIONS;
		return AX_REDRAW;
	case KEY_F(3):
		t->focus = AX_FOCUS_CHECKPOINTS;
		return AX_REDRAW;
	case KEY_F(4):
		t->focus = AX_FOCUS_OUTPUT;
		return AX_REDRAW;
	case KEY_BTAB:
		t->focus = (t->focus + AX_FOCUS_COUNT - 1) % AX_FOCUS_COUNT;
		return AX_REDRAW;
	default:
		break;
	}
	if (t->focus != AX_FOCUS_CMDLINE) {
		if (key == '\t') {
			t->focus = (t->focus + 1) % AX_FOCUS_COUNT;
			return AX_REDRAW;
		}
		if (key == 27) {
			t->focus = AX_FOCUS_CMDLINE;
			return AX_REDRAW;
		}
		if (key == '?') {
			t->help = true;
			return AX_REDRAW;
		}
		return pane_key(t, key);
	}
	if (ax_rl_line_empty() && (key == '\t' || key == '?')) {
		if (key == '?')
			t->help = true;
		else
			t->focus = AX_FOCUS_SESSIONS;
		return AX_REDRAW;
	}
	return feed_key(key);
}

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
	follow_current(t);
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
		if (!t.refresh_stage && now_s() >= t.next_refresh)
			refresh_start(&t);
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
		wait = t.refresh_stage ? 1.0 : t.next_refresh - now_s();
		timeout = wait <= 0 ? 0 : wait > 1.0 ? 1000 : (int)(wait * 1000);
		if (poll(p, (nfds_t)np, timeout) < 0 && errno != EINTR)
			break;
		/* SIGWINCH interrupts poll; curses reports it as KEY_RESIZE. */
		while ((key = getch()) != ERR) {
			flags |= on_key(&t, key);
			if (t.eof)
				flags |= AX_QUIT;
			if (t.pending_line) {
				char *line = t.pending_line;

				t.pending_line = NULL;
				flags |= run_line(&t, line);
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
			refresh_read(&t);
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
