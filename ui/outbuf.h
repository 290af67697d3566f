/*
 * The output pane's scrollback: what commands printed, as lines of UTF-8
 * text. Bytes arrive in chunks from the command's pipe; a line is complete
 * at '\n', '\r' alone rewinds it (progress bars), tabs become spaces and ANSI
 * escape sequences are dropped (the pane draws its own attributes), OSC and
 * DCS strings (window titles, ...) with their text.
 */
#ifndef ALLOX_TUI_OUTBUF_H
#define ALLOX_TUI_OUTBUF_H

#include <stdbool.h>
#include <stddef.h>

#define AX_OUTBUF_MAX_LINES 5000

typedef struct ax_outbuf {
	char **lines;
	size_t n, cap;
	bool open;          /* the last line has no '\n' yet */
	bool cr;            /* a '\r' was seen: rewind unless '\n' follows */
	int esc;            /* 0, 1 after ESC, 2 inside CSI, 3 inside a string
	                       (OSC, DCS, ...), 4 after ESC in one */
	int scroll;         /* rows above the bottom; 0 follows new output */
} ax_outbuf;

void ax_outbuf_init(ax_outbuf *b);
void ax_outbuf_free(ax_outbuf *b);
void ax_outbuf_clear(ax_outbuf *b);
void ax_outbuf_append(ax_outbuf *b, const char *data, size_t len);
/* A whole line of the shell's own (command echo, notes); ends an open line. */
void ax_outbuf_line(ax_outbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Rows LINE takes at WIDTH cells; with STARTS, their byte offsets. */
int ax_outbuf_wrap(const char *line, int width, size_t *starts, int max);

#endif
