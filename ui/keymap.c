/* The shell's key bindings and the help overlay made from them. */
#include "ui/keymap.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "ui/tui.h"

#define KEY_CTRL(c) ((c) & 0x1f)
/* Home and End move this many rows: past either end, which the pane clamps. */
#define FAR (1 << 28)

#define H_PANES "next / previous pane (Tab completes on a typed line)"
#define H_FOCUS "sessions, checkpoints, output, command line"
#define H_MOVE "select a sandbox or checkpoint; scroll the output"
#define H_ENDS "first / last row; the top / bottom of the output"
#define H_PAGE "scroll the output a page"
#define H_HELP "this help"

/* Rows sharing a help text are adjacent: the overlay joins them on one line. */
const ax_keybinding ax_keymap[] = {
	{ { '\t' }, AX_SCOPE_PANES, AX_ACT_FOCUS_NEXT, 1, "Tab", H_PANES },
	{ { '\t' }, AX_SCOPE_EMPTY_LINE, AX_ACT_FOCUS_NEXT, 1, "Tab", H_PANES },
	{ { KEY_BTAB }, AX_SCOPE_GLOBAL, AX_ACT_FOCUS_NEXT, -1, "Shift-Tab", H_PANES },
	{ { KEY_F(2) }, AX_SCOPE_GLOBAL, AX_ACT_FOCUS, AX_FOCUS_SESSIONS, "F2", H_FOCUS },
	{ { KEY_F(3) }, AX_SCOPE_GLOBAL, AX_ACT_FOCUS, AX_FOCUS_CHECKPOINTS, "F3", H_FOCUS },
	{ { KEY_F(4) }, AX_SCOPE_GLOBAL, AX_ACT_FOCUS, AX_FOCUS_OUTPUT, "F4", H_FOCUS },
	{ { 27 }, AX_SCOPE_PANES, AX_ACT_FOCUS, AX_FOCUS_CMDLINE, "Esc", H_FOCUS },
	{ { KEY_UP, 'k' }, AX_SCOPE_PANES, AX_ACT_MOVE, -1, "Up/k", H_MOVE },
	{ { KEY_DOWN, 'j' }, AX_SCOPE_PANES, AX_ACT_MOVE, 1, "Down/j", H_MOVE },
	{ { KEY_HOME }, AX_SCOPE_PANES, AX_ACT_MOVE, -FAR, "Home", H_ENDS },
	{ { KEY_END }, AX_SCOPE_PANES, AX_ACT_MOVE, FAR, "End", H_ENDS },
	{ { '\r', '\n', KEY_ENTER }, AX_SCOPE_PANES, AX_ACT_ENTER, 0, "Enter",
	  "sessions: use it; checkpoints: restore it (y/n)" },
	{ { KEY_PPAGE }, AX_SCOPE_GLOBAL, AX_ACT_PAGE, 1, "PgUp", H_PAGE },
	{ { KEY_NPAGE }, AX_SCOPE_GLOBAL, AX_ACT_PAGE, -1, "PgDn", H_PAGE },
	{ { KEY_CTRL('c') }, AX_SCOPE_GLOBAL, AX_ACT_INTERRUPT, 0, "Ctrl-C",
	  "cancel the running command (never the shell)" },
	{ { KEY_CTRL('l') }, AX_SCOPE_GLOBAL, AX_ACT_REPAINT, 0, "Ctrl-L", "redraw the screen" },
	{ { KEY_CTRL('r') }, AX_SCOPE_CMDLINE, AX_ACT_READLINE, 0, "Ctrl-R",
	  "search the history ($ALLOX_HOME/history)" },
	{ { KEY_CTRL('d') }, AX_SCOPE_CMDLINE, AX_ACT_READLINE, 0, "Ctrl-D", "leave (on an empty line; or exit)" },
	{ { KEY_F(1) }, AX_SCOPE_GLOBAL, AX_ACT_HELP, 0, "F1", H_HELP },
	{ { '?' }, AX_SCOPE_PANES, AX_ACT_HELP, 0, "?", H_HELP },
	{ { '?' }, AX_SCOPE_EMPTY_LINE, AX_ACT_HELP, 0, "?", H_HELP },
};
const size_t ax_keymap_len = sizeof ax_keymap / sizeof ax_keymap[0];

const ax_keybinding *ax_keymap_find(enum ax_key_scope scope, int key)
{
	size_t i, k;

	for (i = 0; i < ax_keymap_len; i++)
		for (k = 0; k < AX_KEYMAP_MAX_KEYS && ax_keymap[i].keys[k]; k++)
			if (ax_keymap[i].scope == scope && ax_keymap[i].keys[k] == key)
				return &ax_keymap[i];
	return NULL;
}

static const char *const head[] = { "allox> keys", "" };
static const char *const foot[] = {
	"",
	"Shell words: help [GROUP [VERB]], use ID, history, clear, exit",
	"",
	"Any key closes this.",
};

int ax_keymap_help_line(size_t i, char *buf, size_t size)
{
	size_t nhead = sizeof head / sizeof head[0], r = 0, line = nhead;

	if (i < nhead) {
		snprintf(buf, size, "%s", head[i]);
		return 1;
	}
	while (r < ax_keymap_len) {
		char keys[64] = "";
		size_t end = r, j;

		while (end < ax_keymap_len && !strcmp(ax_keymap[end].help, ax_keymap[r].help))
			end++;
		if (line++ == i) {
			for (j = r; j < end; j++) {
				size_t seen;

				/* A key bound in two scopes is named once. */
				for (seen = r; seen < j && strcmp(ax_keymap[seen].label, ax_keymap[j].label) != 0; seen++)
					;
				if (seen < j)
					continue;
				snprintf(keys + strlen(keys), sizeof keys - strlen(keys), "%s%s", *keys ? ", " : "",
					 ax_keymap[j].label);
			}
			snprintf(buf, size, "%-15s %s", keys, ax_keymap[r].help);
			return 1;
		}
		r = end;
	}
	if (i - line < sizeof foot / sizeof foot[0]) {
		snprintf(buf, size, "%s", foot[i - line]);
		return 1;
	}
	return 0;
}
