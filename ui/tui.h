/*
 * The allox> screen: panes (sessions, checkpoints, output), a status line and
 * the readline command line, driven by one poll loop. Nothing blocks it: the
 * running command and the list refreshes are child processes whose pipes the
 * loop reads, and readline runs in callback mode fed from curses keys.
 */
#ifndef ALLOX_TUI_TUI_H
#define ALLOX_TUI_TUI_H

#include <stdbool.h>
#include <curses.h>

#include "ui/layout.h"
#include "ui/outbuf.h"
#include "ui/shell.h"

enum ax_focus { AX_FOCUS_CMDLINE, AX_FOCUS_SESSIONS, AX_FOCUS_CHECKPOINTS, AX_FOCUS_OUTPUT, AX_FOCUS_COUNT };

/* What a key handler asks of the loop, in the manner of htop's Htop_Reaction. */
enum {
	AX_REDRAW = 1 << 0,
	AX_RELAYOUT = 1 << 1,
	AX_QUIT = 1 << 2,
};

typedef struct ax_pipe_reader {
	ax_job job;
	char *buf;
	size_t len, cap;
} ax_pipe_reader;

typedef struct ax_tui {
	ax_shell *sh;
	ax_layout lay;
	WINDOW *w_sessions, *w_checkpoints, *w_output, *w_status, *w_cmdline, *w_sep;
	ax_outbuf out;
	int focus;
	int sel_session, top_session, sel_checkpoint, top_checkpoint;
	char *selected;           /* sandbox whose checkpoints are shown */
	char *seen_current;       /* the current session when last refreshed */

	ax_job job;               /* the running command; pid 0 when none */
	int job_interrupts;
	char *job_line;

	ax_pipe_reader refresher; /* `sandbox list` then `checkpoint list --all` */
	int refresh_stage;        /* 0 idle, 1 sandboxes, 2 checkpoints */
	double next_refresh;      /* monotonic seconds */
	double refresh_interval;

	bool help;                /* the help overlay is shown */
	char *confirm_id;         /* asking y/n to restore this checkpoint */
	char *pending_line;       /* accepted by readline, not yet run */
	bool eof;
	bool utf8, colors;
	const char *dump_path;    /* ALLOX_TUI_DUMP */
	char *endpoint;
	const char *profile;
} ax_tui;

/* tui.c */
void ax_set_str(char **slot, const char *v);
/* Run a line typed or made by a pane action; returns AX_* flags. */
int ax_tui_run_line(ax_tui *t, char *line);

/* keys.c */
int ax_tui_on_key(ax_tui *t, int key);

/* refresh.c */
void ax_refresh_start(ax_tui *t);
void ax_refresh_read(ax_tui *t);
void ax_tui_follow_current(ax_tui *t);
void ax_tui_sync_selected(ax_tui *t);

/* panes.c: each pane is one ops table, in the manner of tig's view_ops; the
 * loop and the keymap call through it instead of testing the focus. */
typedef struct ax_pane_ops {
	const char *name;
	enum ax_focus focus;
	void (*draw)(ax_tui *t, bool focused);
	/* Up, Down, Home, End: DELTA rows down (Home and End go past the ends);
	 * not "move", which curses defines as a macro. */
	int (*step)(ax_tui *t, int delta);
	/* Enter on the selected row; NULL where Enter does nothing. */
	int (*enter)(ax_tui *t);
} ax_pane_ops;

/* The pane that takes FOCUS, or NULL (the command line is not a pane). */
const ax_pane_ops *ax_pane_ops_of(int focus);
int ax_tui_scroll_output(ax_tui *t, int rows);
void ax_tui_draw(ax_tui *t);
void ax_tui_windows(ax_tui *t);
void ax_tui_windows_free(ax_tui *t);
const json_t *ax_tui_checkpoint_rows(const ax_tui *t, json_t *into);

/* rlglue.c: readline drawn in the command line window. */
void ax_rl_start(ax_tui *t);
void ax_rl_stop(void);
void ax_rl_feed(const char *bytes, size_t n);
void ax_rl_draw(ax_tui *t);
bool ax_rl_line_empty(void);
void ax_rl_clear_line(void);

/* dump.c: the screen as text, for tests (ALLOX_TUI_DUMP=FILE). */
void ax_tui_dump(const char *path);

#endif
