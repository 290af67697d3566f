/*
 * Where each pane of the allox> screen goes, as pure arithmetic (unit
 * tested): sessions and checkpoints side by side on top, the output pane
 * below them, then the status line and the command line.
 *
 *   +--- sessions ---------+|+--- checkpoints -------+  top: a third of the body
 *   | * o 1b2c...          |||  v1   Ready           |
 *   +--- output ----------------------------------------+
 *   | allox> aio exec ...                                |
 *   status line
 *   allox> _
 *
 * Each pane's first row is its title; there are no side borders, so an 80
 * column terminal shows a full sandbox UUID with its marker and state icon.
 */
#ifndef ALLOX_TUI_LAYOUT_H
#define ALLOX_TUI_LAYOUT_H

#include <stdbool.h>

#define AX_TUI_MIN_ROWS 24
#define AX_TUI_MIN_COLS 80

typedef struct ax_rect {
	int y, x, h, w;
} ax_rect;

typedef struct ax_layout {
	ax_rect sessions, checkpoints, output, status, cmdline;
	/* Under 80x24 the panes shrink; under 10x40 only the command line and
	 * a "terminal too small" note are shown. */
	bool below_minimum;
	bool unusable;
} ax_layout;

void ax_layout_compute(int rows, int cols, ax_layout *out);

#endif
