/*
 * The keymap as data, in the manner of tig's request table: one row per
 * binding says which keys, where they apply, what they do and the help line
 * for them. Key handling looks keys up here and the help overlay is made from
 * the same rows, so a key cannot go undocumented nor the help name a key that
 * does nothing.
 */
#ifndef ALLOX_TUI_KEYMAP_H
#define ALLOX_TUI_KEYMAP_H

#include <stddef.h>

enum ax_key_scope {
	AX_SCOPE_GLOBAL,     /* everywhere, checked first */
	AX_SCOPE_PANES,      /* on any of the panes */
	AX_SCOPE_EMPTY_LINE, /* on the command line while it is empty */
	AX_SCOPE_CMDLINE,    /* on the command line (readline's own keys) */
	AX_SCOPE_COUNT
};

enum ax_key_action {
	AX_ACT_INTERRUPT,  /* cancel the command, or clear the line */
	AX_ACT_REPAINT,
	AX_ACT_PAGE,       /* scroll the output ARG pages back */
	AX_ACT_HELP,
	AX_ACT_FOCUS,      /* focus pane ARG (enum ax_focus) */
	AX_ACT_FOCUS_NEXT, /* ARG panes on, wrapping */
	AX_ACT_MOVE,       /* the pane's step: ARG rows down */
	AX_ACT_ENTER,      /* the pane's enter */
	AX_ACT_READLINE,   /* the key goes to readline */
	AX_ACT_COUNT
};

enum { AX_KEYMAP_MAX_KEYS = 3 };

typedef struct ax_keybinding {
	int keys[AX_KEYMAP_MAX_KEYS]; /* curses key codes; unused slots are 0 */
	enum ax_key_scope scope;
	enum ax_key_action action;
	int arg;
	const char *label;            /* how the help names the keys */
	const char *help;             /* rows with the same help share a line */
} ax_keybinding;

extern const ax_keybinding ax_keymap[];
extern const size_t ax_keymap_len;

/* The binding of KEY in SCOPE, or NULL. */
const ax_keybinding *ax_keymap_find(enum ax_key_scope scope, int key);

/* Line I of the help overlay into BUF; false past the last line. */
int ax_keymap_help_line(size_t i, char *buf, size_t size);

#endif
