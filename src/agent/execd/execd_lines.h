/* Splitting a command's output into the per-line events of the execd
 * stream: "\n", "\r" and "\r\n" each end a line and are not part of it; a
 * final partial line is flushed at the end. A line longer than
 * AG_LINE_MAX is sent in pieces so memory stays bounded whatever a command
 * prints. */
#ifndef ALLOX_AGENT_EXECD_LINES_H
#define ALLOX_AGENT_EXECD_LINES_H

#include <stdbool.h>
#include <stddef.h>

#define AG_LINE_MAX 32768

/* Called for each line; ENDED is false for a piece of a longer line and for
 * the final unterminated line (no terminator was seen: the client must not
 * add one). Returns 0, or -1 to stop. */
typedef int (*ag_line_fn)(void *cls, const char *line, size_t len, bool ended);

struct ag_lines {
	char *carry;        /* the unfinished line, AG_LINE_MAX bytes once allocated */
	size_t len;
	bool after_cr;      /* a "\n" right after "\r" ends no extra line */
};

int ag_lines_feed(struct ag_lines *l, const char *data, size_t n, ag_line_fn fn, void *cls);
/* Deliver the unfinished line, if any. */
int ag_lines_flush(struct ag_lines *l, ag_line_fn fn, void *cls);
void ag_lines_free(struct ag_lines *l);

#endif
