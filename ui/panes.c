/* Drawing the panes: tig's split, display owns windows, drawing owns cells. */
#include "ui/tui.h"

#include <stdlib.h>
#include <string.h>

#include "lib/output.h"
#include "ui/keymap.h"

enum { PAIR_OK = 1, PAIR_PENDING, PAIR_PAUSED, PAIR_ERROR, PAIR_TITLE };

static WINDOW *make(const ax_rect *r)
{
	WINDOW *w;

	if (r->h <= 0 || r->w <= 0)
		return NULL;
	w = newwin(r->h, r->w, r->y, r->x);
	if (w)
		leaveok(w, TRUE);
	return w;
}

void ax_tui_windows_free(ax_tui *t)
{
	WINDOW **all[] = { &t->w_sessions, &t->w_checkpoints, &t->w_output, &t->w_status, &t->w_cmdline, &t->w_sep };
	size_t i;

	for (i = 0; i < sizeof all / sizeof all[0]; i++)
		if (*all[i]) {
			delwin(*all[i]);
			*all[i] = NULL;
		}
}

void ax_tui_windows(ax_tui *t)
{
	ax_rect sep;

	ax_tui_windows_free(t);
	ax_layout_compute(LINES, COLS, &t->lay);
	if (t->colors) {
		init_pair(PAIR_OK, COLOR_GREEN, -1);
		init_pair(PAIR_PENDING, COLOR_YELLOW, -1);
		init_pair(PAIR_PAUSED, COLOR_BLUE, -1);
		init_pair(PAIR_ERROR, COLOR_RED, -1);
		init_pair(PAIR_TITLE, COLOR_CYAN, -1);
	}
	t->w_sessions = make(&t->lay.sessions);
	t->w_checkpoints = make(&t->lay.checkpoints);
	t->w_output = make(&t->lay.output);
	t->w_status = make(&t->lay.status);
	t->w_cmdline = make(&t->lay.cmdline);
	if (t->w_cmdline)
		leaveok(t->w_cmdline, FALSE);
	sep.y = 0;
	sep.x = t->lay.sessions.w;
	sep.h = t->lay.sessions.h;
	sep.w = t->lay.sessions.h ? 1 : 0;
	t->w_sep = make(&sep);
	clearok(curscr, TRUE);
}

/* Icon and colour of a state, like the table renderer's state column. */
/* A state icon, in its colour when the terminal has colours. */
static void draw_icon(const ax_tui *t, WINDOW *w, const char *icon, int pair)
{
	if (t->colors && pair)
		wattron(w, COLOR_PAIR(pair));
	waddstr(w, icon);
	if (t->colors && pair)
		wattroff(w, COLOR_PAIR(pair));
}

static const char *state_icon(const char *state, bool utf8, int *pair)
{
	char s[32];
	size_t i;

	snprintf(s, sizeof s, "%s", state ? state : "");
	for (i = 0; s[i]; i++)
		s[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
	if (!strcmp(s, "running") || !strcmp(s, "ready")) {
		*pair = PAIR_OK;
		return utf8 ? "\u25cf" : "*";
	}
	if (!strcmp(s, "pending") || !strcmp(s, "creating") || !strcmp(s, "pausing") || !strcmp(s, "resuming")) {
		*pair = PAIR_PENDING;
		return utf8 ? "\u25d0" : "~";
	}
	if (!strcmp(s, "paused")) {
		*pair = PAIR_PAUSED;
		return utf8 ? "\u23f8" : "=";
	}
	if (!strcmp(s, "error") || !strcmp(s, "failed")) {
		*pair = PAIR_ERROR;
		return utf8 ? "\u2717" : "x";
	}
	*pair = 0;
	return utf8 ? "\u25cb" : ".";
}

static void title(ax_tui *t, WINDOW *w, bool focused, const char *text)
{
	int width = getmaxx(w);

	wmove(w, 0, 0);
	wattrset(w, focused ? A_REVERSE | A_BOLD : A_BOLD | A_UNDERLINE);
	if (t->colors && !focused)
		wattron(w, COLOR_PAIR(PAIR_TITLE));
	waddnstr(w, text, width);
	whline(w, ' ', width);
	wattrset(w, A_NORMAL);
}

/* Keep SEL within N rows and visible in H rows starting at *TOP. */
static void clamp_view(int *sel, int *top, int n, int h)
{
	if (*sel >= n)
		*sel = n - 1;
	if (*sel < 0)
		*sel = 0;
	if (*top > *sel)
		*top = *sel;
	if (h > 0 && *sel >= *top + h)
		*top = *sel - h + 1;
	if (*top < 0)
		*top = 0;
}

static void draw_sessions(ax_tui *t, bool focused)
{
	WINDOW *w = t->w_sessions;
	const json_t *rows = t->sh->catalog.sandboxes;
	const char *current = t->sh->catalog.current;
	int h, width, n = (int)json_array_size(rows), i;
	char head[96];

	if (!w)
		return;
	h = getmaxy(w) - 1;
	width = getmaxx(w);
	werase(w);
	snprintf(head, sizeof head, " Sessions (%d)%s", n, focused ? "  \u2191\u2193 select, Enter: use" : "  [F2]");
	title(t, w, focused, t->utf8 ? head : " Sessions");
	clamp_view(&t->sel_session, &t->top_session, n, h);
	for (i = 0; i < h && t->top_session + i < n; i++) {
		const json_t *row = json_array_get(rows, (size_t)t->top_session + (size_t)i);
		const char *id = json_string_value(json_object_get(row, "id"));
		const char *state = json_string_value(json_object_get(row, "state"));
		int pair = 0;
		const char *icon = state_icon(state, t->utf8, &pair);
		bool is_current = current && id && !strcmp(id, current);
		bool selected = t->top_session + i == t->sel_session;

		wmove(w, i + 1, 0);
		wattrset(w, selected ? (focused ? A_REVERSE : A_UNDERLINE) : A_NORMAL);
		if (is_current)
			wattron(w, A_BOLD);
		waddstr(w, is_current ? (t->utf8 ? "\u25b6" : ">") : " ");
		waddstr(w, " ");
		draw_icon(t, w, icon, pair);
		waddstr(w, " ");
		waddnstr(w, id ? id : "?", width - 4);
		/* The state in words when it fits (a full row would wrap the cursor). */
		if (state && 4 + (int)strlen(id ? id : "?") + 1 + (int)strlen(state) <= width) {
			waddstr(w, " ");
			waddstr(w, state);
		}
		if (selected && getcury(w) == i + 1 && getcurx(w) < width - 1)
			whline(w, ' ', width - getcurx(w));
		wattrset(w, A_NORMAL);
	}
	if (n == 0) {
		wmove(w, 1, 2);
		waddnstr(w, t->sh->catalog.error ? t->sh->catalog.error
			 : t->sh->catalog.refreshed_at ? "(no sandboxes: sandbox create)" : "(loading...)", width - 2);
	}
	wnoutrefresh(w);
}

const json_t *ax_tui_checkpoint_rows(const ax_tui *t, json_t *into)
{
	size_t i;
	json_t *row;

	json_array_foreach(t->sh->catalog.checkpoints, i, row) {
		const char *sid = json_string_value(json_object_get(row, "sandbox_id"));

		if (t->selected && sid && !strcmp(sid, t->selected))
			json_array_append(into, row);
	}
	return into;
}

static void draw_checkpoints(ax_tui *t, bool focused)
{
	WINDOW *w = t->w_checkpoints;
	json_t *rows;
	int h, width, n, i;
	char head[96];

	if (!w)
		return;
	rows = json_array();
	ax_tui_checkpoint_rows(t, rows);
	n = (int)json_array_size(rows);
	h = getmaxy(w) - 1;
	width = getmaxx(w);
	werase(w);
	snprintf(head, sizeof head, " Checkpoints of %.8s (%d)%s", t->selected ? t->selected : "-", n,
		 focused ? "  Enter: restore" : "  [F3]");
	title(t, w, focused, head);
	clamp_view(&t->sel_checkpoint, &t->top_checkpoint, n, h);
	for (i = 0; i < h && t->top_checkpoint + i < n; i++) {
		const json_t *row = json_array_get(rows, (size_t)t->top_checkpoint + (size_t)i);
		const char *name = json_string_value(json_object_get(row, "name"));
		const char *id = json_string_value(json_object_get(row, "id"));
		const char *state = json_string_value(json_object_get(row, "state"));
		bool selected = t->top_checkpoint + i == t->sel_checkpoint;
		int pair = 0;
		const char *icon = state_icon(state, t->utf8, &pair);
		char line[256];

		wmove(w, i + 1, 0);
		wattrset(w, selected ? (focused ? A_REVERSE : A_UNDERLINE) : A_NORMAL);
		waddstr(w, " ");
		draw_icon(t, w, icon, pair);
		snprintf(line, sizeof line, " %-12s %.8s %s", name && *name ? name : "-", id ? id : "?",
			 state ? state : "");
		waddnstr(w, line, width - getcurx(w));
		if (selected && getcurx(w) < width - 1)
			whline(w, ' ', width - getcurx(w));
		wattrset(w, A_NORMAL);
	}
	if (n == 0) {
		wmove(w, 1, 2);
		waddnstr(w, t->selected ? "(none: checkpoint create --name NAME)" : "(select a sandbox)", width - 2);
	}
	json_decref(rows);
	wnoutrefresh(w);
}

static void draw_output(ax_tui *t, bool focused)
{
	WINDOW *w = t->w_output;
	ax_outbuf *b = &t->out;
	int h, width, have = 0, want, first, row;
	size_t *rows_line, *rows_off, starts[512];
	long li;
	char head[128];

	if (!w)
		return;
	h = getmaxy(w) - (t->lay.unusable ? 0 : 1);
	width = getmaxx(w);
	werase(w);
	if (!t->lay.unusable) {
		if (b->scroll > 0)
			snprintf(head, sizeof head, " Output  [scrolled up %d rows: End or PgDn]", b->scroll);
		else
			snprintf(head, sizeof head, " Output%s", focused ? "  PgUp/PgDn, Home/End" : "  [F4]");
		title(t, w, focused, head);
	}
	want = h + b->scroll;
	rows_line = calloc((size_t)want + 1, sizeof *rows_line);
	rows_off = calloc((size_t)want + 1, sizeof *rows_off);
	if (!rows_line || !rows_off || h <= 0)
		goto out;
	/* Rows from the bottom up, until the screen and the scrolled part are full. */
	for (li = (long)b->n - 1; li >= 0 && have < want; li--) {
		int nr = ax_outbuf_wrap(b->lines[li], width, starts, 512), k;

		if (nr > 512)
			nr = 512;
		for (k = nr - 1; k >= 0 && have < want; k--) {
			rows_line[have] = (size_t)li;
			rows_off[have] = starts[k];
			have++;
		}
	}
	if (b->scroll > have - h)
		b->scroll = have - h > 0 ? have - h : 0;
	first = b->scroll + h - 1; /* index (from the bottom) of the top visible row */
	if (first >= have)
		first = have - 1;
	for (row = 0; first - row >= b->scroll && first - row >= 0; row++) {
		int idx = first - row;
		const char *line = b->lines[rows_line[idx]];
		size_t end = idx > 0 && rows_line[idx - 1] == rows_line[idx] ? rows_off[idx - 1] : strlen(line);
		bool echo = strncmp(line, AX_SHELL_PROMPT, strlen(AX_SHELL_PROMPT)) == 0;

		wmove(w, (t->lay.unusable ? 0 : 1) + row, 0);
		if (echo)
			wattron(w, A_BOLD);
		waddnstr(w, line + rows_off[idx], (int)(end - rows_off[idx]));
		wattroff(w, A_BOLD);
	}
out:
	free(rows_line);
	free(rows_off);
	wnoutrefresh(w);
}

static void draw_status(ax_tui *t)
{
	WINDOW *w = t->w_status;
	char text[512], last[96] = "", shown[40];
	const char *current = t->sh->catalog.current;
	/* The full id when the line has room for it, else its first 8 characters. */
	int id_len = w && getmaxx(w) < 110 ? 8 : 36;

	if (!w)
		return;
	snprintf(shown, sizeof shown, "%.*s", id_len, current ? current : "(none)");
	if (t->sh->ran_any)
		snprintf(last, sizeof last, " last: exit %d, %.2fs |", t->sh->last_status, t->sh->last_seconds);
	if (t->confirm_id)
		snprintf(text, sizeof text, " Restore checkpoint %.8s into a new sandbox? [y/N]", t->confirm_id);
	else if (t->job.pid)
		/* The hint goes before the command: a long command line is cut at the
		 * right edge, and the hint must stay on screen. */
		snprintf(text, sizeof text, " %s | sandbox %s | %.0fs (Ctrl-C cancels) running %s", t->endpoint,
			 shown, ax_job_seconds(&t->job), t->job_line ? t->job_line : "");
	else
		snprintf(text, sizeof text, " %s | sandbox %s |%s ? help", t->endpoint, shown, last);
	werase(w);
	wattrset(w, A_REVERSE);
	if (t->colors && t->sh->ran_any && t->sh->last_status && !t->job.pid && !t->confirm_id)
		wattron(w, COLOR_PAIR(PAIR_ERROR));
	mvwaddnstr(w, 0, 0, text, getmaxx(w));
	whline(w, ' ', getmaxx(w) - getcurx(w));
	wattrset(w, A_NORMAL);
	wnoutrefresh(w);
}

/* The help overlay: the keymap's help lines (ui/keymap.c). */
static void draw_help(void)
{
	char line[128];
	int n = 0, width = 72, i;
	WINDOW *w;

	while (ax_keymap_help_line((size_t)n, line, sizeof line))
		n++;
	if (width > COLS - 2)
		width = COLS - 2;
	if (n + 2 > LINES - 2 || width < 20)
		return;
	w = newwin(n + 2, width, (LINES - n - 2) / 2, (COLS - width) / 2);
	if (!w)
		return;
	werase(w);
	box(w, 0, 0);
	for (i = 0; i < n && ax_keymap_help_line((size_t)i, line, sizeof line); i++)
		mvwaddnstr(w, i + 1, 2, line, width - 4);
	wnoutrefresh(w);
	delwin(w);
}

static void draw_separator(ax_tui *t)
{
	int y;

	if (!t->w_sep)
		return;
	werase(t->w_sep);
	/* A character, not ACS_VLINE, so the screen dump reads it back. */
	for (y = 0; y < getmaxy(t->w_sep); y++)
		mvwaddstr(t->w_sep, y, 0, t->utf8 ? "\u2502" : "|");
	wnoutrefresh(t->w_sep);
}

static int sessions_step(ax_tui *t, int delta)
{
	int n = (int)json_array_size(t->sh->catalog.sandboxes);

	t->sel_session += delta;
	if (t->sel_session >= n)
		t->sel_session = n - 1;
	if (t->sel_session < 0)
		t->sel_session = 0;
	ax_tui_sync_selected(t);
	return AX_REDRAW;
}

static int sessions_enter(ax_tui *t)
{
	const json_t *row = json_array_get(t->sh->catalog.sandboxes, (size_t)t->sel_session);
	const char *id = json_string_value(json_object_get(row, "id"));
	char line[256];

	if (!id)
		return 0;
	snprintf(line, sizeof line, "session use %s", id);
	return ax_tui_run_line(t, line);
}

static int checkpoints_step(ax_tui *t, int delta)
{
	json_t *rows = json_array();
	int n = (int)json_array_size(ax_tui_checkpoint_rows(t, rows));

	json_decref(rows);
	t->sel_checkpoint += delta;
	if (t->sel_checkpoint >= n)
		t->sel_checkpoint = n - 1;
	if (t->sel_checkpoint < 0)
		t->sel_checkpoint = 0;
	return AX_REDRAW;
}

/* Restoring asks first: the status line shows the question. */
static int checkpoints_enter(ax_tui *t)
{
	json_t *rows = json_array();

	ax_tui_checkpoint_rows(t, rows);
	ax_set_str(&t->confirm_id, json_string_value(json_object_get(json_array_get(rows,
		(size_t)t->sel_checkpoint), "id")));
	json_decref(rows);
	return AX_REDRAW;
}

int ax_tui_scroll_output(ax_tui *t, int rows)
{
	/* Home and End ask for 1 << 28 rows; the bound keeps repeats from overflowing. */
	if (rows > 0 && t->out.scroll > (1 << 29))
		rows = 0;
	t->out.scroll += rows;
	if (t->out.scroll < 0)
		t->out.scroll = 0;
	return AX_REDRAW; /* drawing clamps the top */
}

/* Down scrolls toward the newest line, which is scroll 0. */
static int output_step(ax_tui *t, int delta)
{
	return ax_tui_scroll_output(t, -delta);
}

static const ax_pane_ops sessions_ops = {
	.name = "sessions",
	.focus = AX_FOCUS_SESSIONS,
	.draw = draw_sessions,
	.step = sessions_step,
	.enter = sessions_enter,
};

static const ax_pane_ops checkpoints_ops = {
	.name = "checkpoints",
	.focus = AX_FOCUS_CHECKPOINTS,
	.draw = draw_checkpoints,
	.step = checkpoints_step,
	.enter = checkpoints_enter,
};

static const ax_pane_ops output_ops = {
	.name = "output",
	.focus = AX_FOCUS_OUTPUT,
	.draw = draw_output,
	.step = output_step,
	.enter = NULL,
};

const ax_pane_ops *ax_pane_ops_of(int focus)
{
	static const ax_pane_ops *const panes[AX_FOCUS_COUNT] = {
		[AX_FOCUS_SESSIONS] = &sessions_ops,
		[AX_FOCUS_CHECKPOINTS] = &checkpoints_ops,
		[AX_FOCUS_OUTPUT] = &output_ops,
	};

	return focus >= 0 && focus < AX_FOCUS_COUNT ? panes[focus] : NULL;
}

void ax_tui_draw(ax_tui *t)
{
	int f;

	for (f = 0; f < AX_FOCUS_COUNT; f++) {
		const ax_pane_ops *pane = ax_pane_ops_of(f);

		if (pane)
			pane->draw(t, t->focus == f);
	}
	draw_separator(t);
	if (t->lay.unusable && t->w_output) {
		mvwaddnstr(t->w_output, 0, 0, "(terminal too small: 80x24 or more)", getmaxx(t->w_output));
		wnoutrefresh(t->w_output);
	}
	draw_status(t);
	if (t->help)
		draw_help();
	ax_rl_draw(t);
	curs_set(t->focus == AX_FOCUS_CMDLINE && !t->help && !t->confirm_id ? 1 : 0);
	doupdate();
	if (t->dump_path)
		ax_tui_dump(t->dump_path);
}
