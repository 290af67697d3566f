/*
 * The screen as text after each redraw (ALLOX_TUI_DUMP=FILE), so tests read
 * what is shown without racing the terminal, like tig's :save-display. The
 * file is replaced atomically: a reader never sees half a screen.
 */
#include "ui/tui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

void ax_tui_dump(const char *path)
{
	size_t plen = strlen(path);
	char *tmp = malloc(plen + 8);
	wchar_t *row = calloc((size_t)COLS + 1, sizeof *row);
	char *bytes = malloc((size_t)COLS * MB_CUR_MAX + 1);
	FILE *f = NULL;
	int y;

	if (!tmp || !row || !bytes)
		goto out;
	snprintf(tmp, plen + 8, "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		goto out;
	for (y = 0; y < LINES; y++) {
		size_t n;
		int got = mvwinnwstr(curscr, y, 0, row, COLS);

		if (got == ERR)
			row[0] = L'\0';
		n = wcstombs(bytes, row, (size_t)COLS * MB_CUR_MAX);
		if (n == (size_t)-1)
			n = 0;
		bytes[n] = '\0';
		while (n > 0 && bytes[n - 1] == ' ')
			bytes[--n] = '\0';
		fprintf(f, "%s\n", bytes);
	}
	if (fclose(f) == 0)
		rename(tmp, path);
	f = NULL;
out:
	if (f)
		fclose(f);
	free(tmp);
	free(row);
	free(bytes);
}
