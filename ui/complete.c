/* Tab completion on the allox> line through the command table's completer. */
#include "ui/complete.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <readline/readline.h>

#include "cli/hidden.h"

/* Readline's completion hooks have no user pointer. */
static ax_shell *completing;

static int add(ax_completion *c, const char *word, size_t len)
{
	char **v = realloc(c->words, (c->n + 2) * sizeof *v);

	if (!v)
		return -1;
	c->words = v;
	if (!(v[c->n] = strndup(word, len)))
		return -1;
	v[++c->n] = NULL;
	return 0;
}

/* Take __complete's answer: "CANDIDATE<TAB>description" lines, then ":none",
 * ":files" or ":dirs". Descriptions are for shells that show them. */
static int take_answer(ax_completion *c, const char *answer)
{
	const char *line = answer;

	while (*line) {
		size_t len = strcspn(line, "\n");

		if (line[0] == ':')
			c->paths = strncmp(line, ":files", len) == 0 || strncmp(line, ":dirs", len) == 0;
		else if (add(c, line, strcspn(line, "\t\n")) < 0)
			return -1;
		line += len;
		if (*line)
			line++;
	}
	return 0;
}

/* Words only the shell knows, offered where a command group may start. */
static int add_shell_words(ax_completion *c, const char *text)
{
	static const char *const words[] = { "use", "history", "clear", "exit", "quit", NULL };
	const char *const *w;

	for (w = words; *w; w++)
		if (strncmp(*w, text, strlen(text)) == 0 && add(c, *w, strlen(*w)) < 0)
			return -1;
	return 0;
}

int ax_complete_shell(const ax_shell *sh, const char *line_before, const char *text, ax_completion *out)
{
	ax_words w;
	ax_error err;
	char **argv = NULL, *answer = NULL;
	size_t size = 0;
	FILE *f = NULL;
	int argc = 0, done, i, rc = -1;

	memset(out, 0, sizeof *out);
	if (ax_split_line(line_before, true, &w, &err) < 0)
		return -1;
	out->words = calloc(1, sizeof *out->words);
	argv = calloc((size_t)w.n + 3, sizeof *argv);
	f = open_memstream(&answer, &size);
	if (!out->words || !argv || !f)
		goto out;
	/* After an opening quote readline's TEXT is the quoted word: the split's
	 * last (open) word is that word, not one before it. */
	done = w.open_quote && w.n > 0 ? w.n - 1 : w.n;
	/* `use ID` is `session use ID`; the other shell words take no arguments. */
	if (done > 0 && strcmp(w.v[0], "use") == 0)
		argv[argc++] = (char *)"session";
	for (i = 0; i < done; i++)
		argv[argc++] = w.v[i];
	argv[argc++] = (char *)text;
	ax_complete_line(sh->ctx->registry, sh->ctx->globals, sh->ctx->home, argc, argv, f);
	if (fclose(f) != 0) {
		f = NULL;
		goto out;
	}
	f = NULL;
	if (take_answer(out, answer) == 0 && (done > 0 || add_shell_words(out, text) == 0))
		rc = 0;
out:
	if (f)
		fclose(f);
	if (rc < 0)
		ax_completion_free(out);
	free(answer);
	free(argv);
	ax_words_free(&w);
	return rc;
}

void ax_completion_free(ax_completion *c)
{
	size_t i;

	for (i = 0; c->words && i < c->n; i++)
		free(c->words[i]);
	free(c->words);
	memset(c, 0, sizeof *c);
}

/* Local paths beside the candidates (file upload's first word may be a
 * sandbox id or a path), as readline's own filename completion finds them. */
static void add_paths(ax_completion *c, const char *text)
{
	char *name;
	int state = 0;

	while ((name = rl_filename_completion_function(text, state++))) {
		add(c, name, strlen(name));
		free(name);
	}
}

/* Readline wants the common prefix first, then the matches. */
static char **attempt(const char *text, int start, int end)
{
	char *before = strndup(rl_line_buffer, (size_t)start);
	ax_completion c;
	char **out;
	size_t i, common;
	int rc;

	(void)end;
	if (!before)
		return NULL;
	rc = ax_complete_shell(completing, before, text, &c);
	free(before);
	if (rc < 0)
		return NULL;
	if (c.paths && c.n == 0) {
		/* Only local paths: readline's filename completion, quoting and all. */
		ax_completion_free(&c);
		return NULL;
	}
	rl_attempted_completion_over = 1;
	if (c.paths) {
		add_paths(&c, text);
		rl_filename_completion_desired = 1;
	}
	if (c.n == 0 || !(out = calloc(c.n + 2, sizeof *out))) {
		ax_completion_free(&c);
		return NULL;
	}
	common = strlen(c.words[0]);
	for (i = 1; i < c.n; i++) {
		size_t k = 0;

		while (k < common && c.words[i][k] == c.words[0][k])
			k++;
		common = k;
	}
	out[0] = strndup(c.words[0], common);
	if (c.n > 1) {
		memcpy(out + 1, c.words, c.n * sizeof *out);
		free(c.words);
	} else {
		ax_completion_free(&c);
	}
	return out;
}

void ax_complete_install(ax_shell *sh)
{
	completing = sh;
	rl_readline_name = "allox";
	rl_attempted_completion_function = attempt;
	rl_completer_quote_characters = "'\"";
	rl_basic_word_break_characters = " \t\n";
	rl_completer_word_break_characters = " \t\n";
}
