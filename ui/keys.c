/*
 * Keys, in the manner of htop's Action.c: each handler returns what the loop
 * must do (AX_REDRAW, AX_RELAYOUT, AX_QUIT). On the command line keys go to
 * readline; on a pane they select, scroll or act.
 */
#include "ui/tui.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#define KEY_CTRL(c) ((c) & 0x1f)

static int run_words(ax_tui *t, const char *a, const char *b, const char *c)
{
	char line[256];

	snprintf(line, sizeof line, "%s %s %s", a, b, c);
	return ax_tui_run_line(t, line);
}


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
		ax_set_str(&t->confirm_id, json_string_value(json_object_get(json_array_get(rows,
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
		ax_tui_sync_selected(t);
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

int ax_tui_on_key(ax_tui *t, int key)
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
