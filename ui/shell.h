/*
 * The allox> shell: what every mode (panes, plain, script) shares. A line is
 * split into words, shell-only words are handled here, and everything else
 * becomes the argv of a child `allox-cli` (see job.h).
 */
#ifndef ALLOX_TUI_SHELL_H
#define ALLOX_TUI_SHELL_H

#include <stdbool.h>
#include <stdio.h>

#include "ui/catalog.h"
#include "cmd/command.h"
#include "ui/job.h"
#include "ui/split.h"

#define AX_SHELL_PROMPT "allox> "

typedef struct ax_shell {
	ax_ctx *ctx;
	ax_exec_env exec;
	ax_catalog catalog;
	char *history_path;      /* $ALLOX_HOME/history */
	int last_status;         /* of the last command run */
	double last_seconds;
	bool ran_any;
	int last_failure;        /* script mode's exit status */
	bool interactive;        /* `exit` alone is 0, not the last failure */
	bool done;               /* exit, quit or end of input */
	int exit_status;
} ax_shell;

typedef enum ax_line_kind {
	AX_LINE_EMPTY,     /* blank or comment */
	AX_LINE_RUN,       /* run w->v as a child */
	AX_LINE_HISTORY,   /* print the history */
	AX_LINE_CLEAR,     /* clear the output */
	AX_LINE_EXIT,      /* leave; sh->exit_status set */
	AX_LINE_ERROR,     /* *ERR says why (a usage error) */
} ax_line_kind;

/* The `shell` command group (shell_cmd.c), for the program's registry. */
extern const ax_group_spec ax_group_shell;

int ax_shell_init(ax_shell *sh, ax_ctx *ctx, ax_error *err);
void ax_shell_free(ax_shell *sh);

/*
 * Split LINE into W and decide what it is. Shell words are rewritten to the
 * commands they stand for: `use ID` -> `session use ID`; `help [WORDS]`
 * stays the CLI's help. W is filled for AX_LINE_RUN (free it after).
 */
ax_line_kind ax_shell_classify(ax_shell *sh, const char *line, ax_words *w, ax_error *err);

/* Print an error like the CLI does ("Error: ..."). */
void ax_shell_print_error(FILE *f, const ax_error *err);

/* Readline history: load from and append to $ALLOX_HOME/history. */
void ax_shell_history_load(ax_shell *sh);
void ax_shell_history_add(ax_shell *sh, const char *line);

/* Record how the last command ended (status, seconds). */
void ax_shell_finished(ax_shell *sh, int status, double seconds);

/* Plain and script modes: run W's command in the foreground to its end,
 * output straight to the terminal, and record it. Its exit status. */
int ax_shell_run_foreground(ax_shell *sh, const ax_words *w);

/* Modes. Each returns the shell's exit status. */
int ax_shell_script(ax_shell *sh, FILE *in);
int ax_shell_plain(ax_shell *sh);
int ax_shell_tui(ax_shell *sh);

#endif
