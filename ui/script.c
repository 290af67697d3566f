/* Script mode: stdin is not a terminal; one command per line. */
#include "ui/shell.h"

#include <stdlib.h>
#include <string.h>
#include <readline/history.h>

int ax_shell_script(ax_shell *sh, FILE *in)
{
	char *line = NULL;
	size_t cap = 0;

	while (!sh->done && getline(&line, &cap, in) >= 0) {
		ax_words w;
		ax_error err;

		ax_error_clear(&err);
		switch (ax_shell_classify(sh, line, &w, &err)) {
		case AX_LINE_EMPTY:
		case AX_LINE_CLEAR:
		case AX_LINE_HISTORY:
			break;
		case AX_LINE_EXIT:
			sh->done = true;
			break;
		case AX_LINE_ERROR:
			ax_shell_print_error(stderr, &err);
			ax_shell_finished(sh, err.exit_code ? err.exit_code : AX_EXIT_USAGE, 0);
			break;
		case AX_LINE_RUN:
			ax_shell_run_foreground(sh, &w);
			ax_words_free(&w);
			break;
		}
	}
	free(line);
	return sh->done ? sh->exit_status : sh->last_failure;
}
