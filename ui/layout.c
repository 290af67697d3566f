/* Pane geometry from the terminal size. */
#include "ui/layout.h"

#include <string.h>

static ax_rect rect(int y, int x, int h, int w)
{
	ax_rect r = { y, x, h > 0 ? h : 0, w > 0 ? w : 0 };

	return r;
}

void ax_layout_compute(int rows, int cols, ax_layout *out)
{
	int body, top, left;

	memset(out, 0, sizeof *out);
	out->below_minimum = rows < AX_TUI_MIN_ROWS || cols < AX_TUI_MIN_COLS;
	out->unusable = rows < 10 || cols < 40;
	if (rows < 1 || cols < 1)
		return;
	out->cmdline = rect(rows - 1, 0, 1, cols);
	if (out->unusable) {
		out->output = rect(0, 0, rows - 1, cols);
		return;
	}
	out->status = rect(rows - 2, 0, 1, cols);
	body = rows - 2;
	/* A title and at least 5 rows of sandboxes; more on tall screens. */
	top = body / 3;
	if (top < 6)
		top = 6;
	if (top > 16)
		top = 16;
	left = cols / 2;
	out->sessions = rect(0, 0, top, left);
	/* One column between the two for a separator. */
	out->checkpoints = rect(0, left + 1, top, cols - left - 1);
	out->output = rect(top, 0, body - top, cols);
}
