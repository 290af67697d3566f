/*
 * Keys, in the manner of htop's Action.c: each handler returns what the loop
 * must do (AX_REDRAW, AX_RELAYOUT, AX_QUIT). Which key does what is the table
 * in ui/keymap.c; this file looks keys up there and carries out the actions,
 * the pane ones through the focused pane's ops table. A key bound nowhere goes
 * to readline on the command line, and on a pane a printable one types there.
 */
#include "ui/tui.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "ui/keymap.h"

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

static int act(ax_tui *t, const ax_keybinding *b, int key)
{
	const ax_pane_ops *pane = ax_pane_ops_of(t->focus);
	int page = t->lay.output.h > 2 ? t->lay.output.h - 2 : 1;

	switch (b->action) {
	case AX_ACT_INTERRUPT:
		return interrupt(t);
	case AX_ACT_REPAINT:
		clearok(curscr, TRUE);
		return AX_REDRAW;
	case AX_ACT_PAGE:
		return ax_tui_scroll_output(t, b->arg * page);
	case AX_ACT_HELP:
		t->help = true;
		return AX_REDRAW;
	case AX_ACT_FOCUS:
		t->focus = b->arg;
		return AX_REDRAW;
	case AX_ACT_FOCUS_NEXT:
		t->focus = (t->focus + AX_FOCUS_COUNT + b->arg) % AX_FOCUS_COUNT;
		return AX_REDRAW;
	case AX_ACT_MOVE:
		return pane ? pane->step(t, b->arg) : 0;
	case AX_ACT_ENTER:
		return pane && pane->enter ? pane->enter(t) : 0;
	case AX_ACT_READLINE:
	case AX_ACT_COUNT:
		break;
	}
	return feed_key(key);
}

int ax_tui_on_key(ax_tui *t, int key)
{
	const ax_keybinding *b;

	/* A resize is an event, not a key: it rebuilds the windows under any overlay. */
	if (key == KEY_RESIZE)
		return AX_RELAYOUT;
	if (t->help) {
		t->help = false;
		return AX_REDRAW;
	}
	/* The restore question is modal; its keys are on the status line. */
	if (t->confirm_id) {
		char *id = t->confirm_id;
		int r = AX_REDRAW;

		t->confirm_id = NULL;
		if (key == 'y' || key == 'Y') {
			char line[256];

			snprintf(line, sizeof line, "checkpoint restore %s", id);
			r = ax_tui_run_line(t, line);
		}
		free(id);
		return r;
	}
	if ((b = ax_keymap_find(AX_SCOPE_GLOBAL, key)))
		return act(t, b, key);
	if (t->focus != AX_FOCUS_CMDLINE) {
		if ((b = ax_keymap_find(AX_SCOPE_PANES, key)))
			return act(t, b, key);
		if (key >= ' ' && key < 256 && key != 127) {
			/* Typing on a pane types on the command line. */
			t->focus = AX_FOCUS_CMDLINE;
			return feed_key(key);
		}
		return 0;
	}
	if (ax_rl_line_empty() && (b = ax_keymap_find(AX_SCOPE_EMPTY_LINE, key)))
		return act(t, b, key);
	if ((b = ax_keymap_find(AX_SCOPE_CMDLINE, key)))
		return act(t, b, key);
	return feed_key(key);
}
