/*
 * Split a command line into words the way a POSIX shell would, without any
 * expansion: blanks separate words; '...' is literal; "..." keeps blanks and
 * lets a backslash escape only $ ` " \ and newline; a backslash outside
 * quotes takes the next character literally; # at the start of a word begins
 * a comment. No variables, globs or command substitution (wordexp(3) would
 * expand them, and a shell that runs `$(...)` on a typo is not wanted here).
 */
#ifndef ALLOX_TUI_SPLIT_H
#define ALLOX_TUI_SPLIT_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/ax_error.h"

typedef struct ax_words {
	char **v;      /* NULL-terminated */
	int n;
	/* Filled when split with partial: the line ended inside this quote
	 * character ('\'' or '"'), or 0. */
	char open_quote;
	/* Whether the line ends in blanks, so the next word is a new, empty one. */
	bool ends_in_blank;
} ax_words;

/*
 * Split LINE into *OUT. With PARTIAL (for completion of a line being typed),
 * an unterminated quote or a trailing backslash is accepted; otherwise it is
 * a usage error. Returns 0 or -1 with ERR set (usage error, or out of memory).
 */
int ax_split_line(const char *line, bool partial, ax_words *out, ax_error *err);
void ax_words_free(ax_words *w);

#endif
