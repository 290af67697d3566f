/*
 * Tab completion for the allox> line. The answers are those of `allox-cli
 * __complete line` (src/cli/complete_line.c), the one completer that bash,
 * zsh and fish use too, so the shell offers exactly what the command table
 * says; this file only adds the shell's own words (use, history, clear, exit,
 * quit) and hands local paths to readline's filename completion.
 */
#ifndef ALLOX_TUI_COMPLETE_H
#define ALLOX_TUI_COMPLETE_H

#include <stdbool.h>
#include <stddef.h>

#include "ui/shell.h"

typedef struct ax_completion {
	char **words;      /* NULL-terminated, malloc'd */
	size_t n;
	bool paths;        /* local paths complete too (readline's filename completion) */
} ax_completion;

/* Install the completer for SH. Readline's hooks take no user data, so the
 * shell is remembered in one static pointer for the shell's lifetime. */
void ax_complete_install(ax_shell *sh);

/* What completes the word TEXT at the end of LINE_BEFORE (the line up to the
 * word) into *OUT; free it with ax_completion_free. Returns 0, or -1 when
 * nothing completes (the line does not split, or out of memory). Exposed for
 * tests. */
int ax_complete_shell(const ax_shell *sh, const char *line_before, const char *text, ax_completion *out);
void ax_completion_free(ax_completion *c);

#endif
