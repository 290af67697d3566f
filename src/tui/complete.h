/*
 * Tab completion for the allox> line, from the command table and the
 * catalog: verbs, options, option values (-o formats, choices), sandbox ids,
 * checkpoint ids and names, and local paths (readline's filename completion).
 */
#ifndef ALLOX_TUI_COMPLETE_H
#define ALLOX_TUI_COMPLETE_H

#include "shell.h"

/* Install the completer for SH. Readline's hooks take no user data, so the
 * shell is remembered in one static pointer for the shell's lifetime. With
 * REFRESH_ON_DEMAND (plain mode: no background refresh) a completion of ids
 * refreshes the catalog first when it is older than a few seconds. */
void ax_complete_install(ax_shell *sh, bool refresh_on_demand);

/* The candidates for the word TEXT at the end of LINE_BEFORE (the line up to
 * the word), NULL-terminated and malloc'ed, or NULL for "complete a local
 * path". Exposed for tests. */
char **ax_complete_candidates(ax_shell *sh, const char *line_before, const char *text);

#endif
