/*
 * GNU readline inside a curses window, as tig does in prompt.c, but through
 * the callback interface so the loop keeps reading command output while a
 * line is edited: curses owns the terminal (no prep/deprep, no signal or
 * SIGWINCH handling by readline), keys are fed to readline from a queue
 * through rl_getc_function, and rl_redisplay_function draws the prompt and
 * line into the command line window. Completion listings go to the output
 * pane.
 *
 * Readline is one global state machine with hooks that take no user data, so
 * the screen it draws on is remembered in one static pointer.
 */
#include "ui/tui.h"

#include <stdlib.h>
#include <string.h>
#include <readline/history.h>
#include <readline/readline.h>

#include "ui/complete.h"
#include "lib/output.h"

static ax_tui *screen;
static unsigned char queue[256];
static size_t q_head, q_len;

static int queued_getc(FILE *f)
{
	unsigned char c;

	(void)f;
	/* Never EOF (readline would end the line): a NUL is set-mark, harmless. */
	if (!q_len)
		return 0;
	c = queue[q_head];
	q_head = (q_head + 1) % sizeof queue;
	q_len--;
	return c;
}

static int queued_available(void)
{
	return q_len > 0;
}

static void redisplay(void)
{
	/* The loop draws everything after feeding; drawing here too keeps the
	 * cursor right during incremental search. */
	if (screen)
		ax_rl_draw(screen);
}

static void show_matches(char **matches, int n, int max_len)
{
	char row[1024];
	int i, per_row, width;
	size_t off = 0;

	if (!screen)
		return;
	width = screen->lay.output.w > 0 ? screen->lay.output.w : 80;
	per_row = width / (max_len + 2);
	if (per_row < 1)
		per_row = 1;
	row[0] = '\0';
	for (i = 1; i <= n; i++) {
		off += (size_t)snprintf(row + off, sizeof row - off, "%-*s", max_len + 2, matches[i]);
		if (off >= sizeof row)
			off = sizeof row - 1;
		if (i % per_row == 0 || i == n) {
			ax_outbuf_line(&screen->out, "%s", row);
			off = 0;
			row[0] = '\0';
		}
	}
	screen->out.scroll = 0;
}

static void on_line(char *line)
{
	if (!screen)
		return;
	if (!line) {
		screen->eof = true;
		return;
	}
	free(screen->pending_line);
	screen->pending_line = line;
}

void ax_rl_start(ax_tui *t)
{
	static FILE *devnull;

	screen = t;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	rl_catch_signals = 0;
	rl_catch_sigwinch = 0;
	rl_change_environment = 0;
	rl_prep_term_function = NULL;
	rl_deprep_term_function = NULL;
	rl_getc_function = queued_getc;
	rl_input_available_hook = queued_available;
	rl_redisplay_function = redisplay;
	rl_completion_display_matches_hook = show_matches;
	rl_outstream = devnull ? devnull : stdout;
	rl_variable_bind("bell-style", "none");
	rl_variable_bind("page-completions", "off");
	rl_variable_bind("horizontal-scroll-mode", "on");
	rl_completion_query_items = 10000;
	ax_complete_install(t->sh);
	rl_callback_handler_install(AX_SHELL_PROMPT, on_line);
	/* After install, which binds the terminal's keys: the sequences the loop
	 * feeds for curses' KEY_HOME, KEY_END and KEY_DC. */
	rl_bind_keyseq("\\e[H", rl_beg_of_line);
	rl_bind_keyseq("\\e[F", rl_end_of_line);
	rl_bind_keyseq("\\e[3~", rl_delete);
}

void ax_rl_stop(void)
{
	rl_callback_handler_remove();
	screen = NULL;
	q_len = 0;
}

void ax_rl_feed(const char *bytes, size_t n)
{
	size_t i;

	for (i = 0; i < n && q_len < sizeof queue; i++) {
		queue[(q_head + q_len) % sizeof queue] = (unsigned char)bytes[i];
		q_len++;
	}
	while (q_len > 0 && screen && !screen->eof)
		rl_callback_read_char();
}

bool ax_rl_line_empty(void)
{
	return rl_end == 0;
}

void ax_rl_clear_line(void)
{
	rl_callback_sigcleanup();
	rl_replace_line("", 0);
	rl_point = rl_end = 0;
	rl_mark = 0;
}

/* Cells that the first N bytes of S take. */
static int cells(const char *s, int n)
{
	char *copy = strndup(s, (size_t)(n > 0 ? n : 0));
	int w;

	if (!copy)
		return n;
	w = ax_display_width(copy);
	free(copy);
	return w;
}

void ax_rl_draw(ax_tui *t)
{
	WINDOW *w = t->w_cmdline;
	const char *prompt = rl_display_prompt ? rl_display_prompt : AX_SHELL_PROMPT;
	const char *line = rl_line_buffer ? rl_line_buffer : "";
	int width, pw, cursor, skip = 0;

	if (!w)
		return;
	width = getmaxx(w);
	pw = ax_display_width(prompt);
	cursor = cells(line, rl_point);
	/* Scroll horizontally so the cursor stays visible. */
	while (pw + cursor - cells(line, skip) >= width - 1 && line[skip]) {
		skip++;
		while ((line[skip] & 0xC0) == 0x80)
			skip++;
	}
	werase(w);
	wattron(w, A_BOLD);
	mvwaddstr(w, 0, 0, prompt);
	wattroff(w, A_BOLD);
	waddnstr(w, line + skip, -1);
	wmove(w, 0, pw + cursor - cells(line, skip));
	wnoutrefresh(w);
}
