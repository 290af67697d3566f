/* `allox-cli shell`: choose the mode and run it. */
#include "ui/shell.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ax_cmd_shell(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	ax_shell sh;
	const char *term = getenv("TERM");
	int status;

	(void)res;
	if (ax_shell_init(&sh, ctx, err) < 0)
		return -1;
	fflush(stdout);
	if (!isatty(STDIN_FILENO))
		status = ax_shell_script(&sh, stdin);
	else if (ax_arg_flag(args, "plain") || !term || !*term || strcmp(term, "dumb") == 0 ||
		 !isatty(STDOUT_FILENO))
		status = ax_shell_plain(&sh);
	else
		status = ax_shell_tui(&sh);
	ax_shell_free(&sh);
	return status;
}
