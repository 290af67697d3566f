/* `allox-cli shell`: choose the mode and run it. */
#include "ui/shell.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmd_shell(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
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

/* The table entries of the verbs above (cmd/command.h). */

static const ax_option_spec shell_options[] = {
	{ .name = "plain", .kind = AX_VAL_NONE, .help = "the prompt without panes (also when TERM=dumb)" },
	AX_OPTIONS_END,
};

static const char *const shell_examples[] = {
	"allox-cli shell",
	"allox-cli shell --plain",
	"printf 'sandbox create\\naio exec -- uname -a\\n' | allox-cli shell",
	NULL,
};

static const ax_command_spec shell_verb = {
	.group = "shell", .name = "", .summary = "Open the interactive allox> shell",
	.description = "On a terminal: panes for sessions (refreshed every few seconds), checkpoints of the "
	"selected sandbox and the running command's output, a status line and the allox> line (readline: history "
	"in $ALLOX_HOME/history, Ctrl-R, Tab completion of verbs, options, values, ids and paths). Each line is "
	"split like a POSIX shell would (quotes, backslashes; no expansion) and runs exactly as `allox-cli "
	"WORDS` would. Ctrl-C cancels the running command, never the shell; Ctrl-D, exit and quit leave. "
	"Tab/Shift-Tab or F2-F4 move between panes, Enter on a sandbox makes it current, Enter on a checkpoint "
	"asks to restore it, ? shows the keys. Shell words: help [GROUP [VERB]], use ID, history, clear, exit "
	"[STATUS]. --plain (or TERM=dumb): the same prompt without panes. With standard input not a terminal "
	"(script mode) it reads one command per line, prints only the commands' own output and exits with the "
	"status of the last failing command (0 if none failed).",
	.options = shell_options, .handler = cmd_shell, .examples = shell_examples,
};

static const ax_command_spec *const shell_verbs[] = {
	&shell_verb,
	NULL,
};

const ax_group_spec ax_group_shell = {
	.name = "shell",
	.summary = "The interactive allox> shell (panes, --plain, or a script on stdin)",
	.verbs = shell_verbs,
};
