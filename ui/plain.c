/*
 * Plain mode (`shell --plain`, TERM=dumb): the allox> prompt with readline
 * editing, history and completion, no panes. Commands write straight to the
 * terminal; the terminal's own SIGINT reaches the command (same process
 * group) while the shell only notes it.
 */
#include "ui/shell.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>
#include <readline/history.h>
#include <readline/readline.h>

#include "ui/complete.h"

/* Signal handler and readline line handler state (neither takes user data). */
static volatile sig_atomic_t got_sigint;
static char *pending_line;
static bool pending_eof;

static void on_sigint(int sig)
{
	(void)sig;
	got_sigint = 1;
}

static void on_line(char *line)
{
	/* Remove the handler here, so readline does not print the next prompt
	 * before the command's output; the loop installs it again. */
	rl_callback_handler_remove();
	if (!line)
		pending_eof = true;
	pending_line = line;
}

static void print_history(FILE *f)
{
	int i;

	for (i = 0; i < history_length; i++) {
		HIST_ENTRY *h = history_get(history_base + i);

		if (h)
			fprintf(f, "%5d  %s\n", history_base + i, h->line);
	}
}

static void run_line(ax_shell *sh, const char *line)
{
	ax_words w;
	ax_error err;
	int status;

	ax_error_clear(&err);
	switch (ax_shell_classify(sh, line, &w, &err)) {
	case AX_LINE_EMPTY:
		return;
	case AX_LINE_HISTORY:
		print_history(stdout);
		return;
	case AX_LINE_CLEAR:
		if (isatty(STDOUT_FILENO))
			fputs("\033[H\033[2J", stdout);
		return;
	case AX_LINE_EXIT:
		sh->done = true;
		return;
	case AX_LINE_ERROR:
		ax_shell_print_error(stderr, &err);
		ax_shell_finished(sh, err.exit_code ? err.exit_code : AX_EXIT_USAGE, 0);
		return;
	case AX_LINE_RUN:
		break;
	}
	status = ax_shell_run_foreground(sh, &w);
	if (status == 130 || status == 128 + SIGINT)
		fputc('\n', stderr);
	got_sigint = 0;
	ax_words_free(&w);
}

int ax_shell_plain(ax_shell *sh)
{
	struct sigaction sa, old_int;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sh->interactive = true;
	rl_catch_signals = 0;
	ax_complete_install(sh);
	ax_shell_history_load(sh);
	rl_callback_handler_install(AX_SHELL_PROMPT, on_line);
	while (!sh->done) {
		fd_set in;

		FD_ZERO(&in);
		FD_SET(STDIN_FILENO, &in);
		if (select(STDIN_FILENO + 1, &in, NULL, NULL, NULL) < 0) {
			if (errno != EINTR)
				break;
			if (got_sigint) {
				/* Ctrl-C at the prompt drops the line, never the shell. */
				got_sigint = 0;
				rl_free_line_state();
				rl_callback_sigcleanup();
				rl_replace_line("", 0);
				rl_crlf();
				rl_on_new_line();
				rl_redisplay();
			}
			continue;
		}
		rl_callback_read_char();
		if (pending_eof) {
			fputc('\n', stdout);
			break;
		}
		if (pending_line) {
			char *line = pending_line;

			pending_line = NULL;
			ax_shell_history_add(sh, line);
			run_line(sh, line);
			free(line);
			if (!sh->done)
				rl_callback_handler_install(AX_SHELL_PROMPT, on_line);
		}
	}
	rl_callback_handler_remove();
	sigaction(SIGINT, &old_int, NULL);
	return sh->exit_status;
}
