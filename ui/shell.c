/* The allox> shell's shared parts: state, shell words, history. */
#include "ui/shell.h"

#include <stdlib.h>
#include <string.h>
#include <readline/history.h>

#include "lib/fs.h"

#define HISTORY_MAX 1000

int ax_shell_init(ax_shell *sh, ax_ctx *ctx, ax_error *err)
{
	memset(sh, 0, sizeof *sh);
	sh->ctx = ctx;
	ax_catalog_init(&sh->catalog);
	if (ax_exec_env_init(&sh->exec, ctx->globals, err) < 0)
		return -1;
	sh->history_path = ax_path_join(ctx->home, "history");
	if (!sh->history_path) {
		ax_shell_free(sh);
		return ax_fail(err, AX_CODE_IO, "out of memory");
	}
	return 0;
}

void ax_shell_free(ax_shell *sh)
{
	ax_exec_env_free(&sh->exec);
	ax_catalog_free(&sh->catalog);
	free(sh->history_path);
	sh->history_path = NULL;
}

static int prepend(ax_words *w, const char *const *words, int n, int drop)
{
	char **v = calloc((size_t)w->n - (size_t)drop + (size_t)n + 1, sizeof *v);
	int i, k = 0;

	if (!v)
		return -1;
	for (i = 0; i < n; i++)
		if (!(v[k++] = strdup(words[i])))
			goto fail;
	for (i = 0; i < w->n; i++) {
		if (i < drop)
			free(w->v[i]);
		else
			v[k++] = w->v[i];
	}
	free(w->v);
	w->v = v;
	w->n = k;
	return 0;
fail:
	while (k > 0)
		free(v[--k]);
	free(v);
	return -1;
}

ax_line_kind ax_shell_classify(ax_shell *sh, const char *line, ax_words *w, ax_error *err)
{
	static const char *const session_use[] = { "session", "use" };
	const char *first;

	if (ax_split_line(line, false, w, err) < 0)
		return AX_LINE_ERROR;
	if (w->n == 0) {
		ax_words_free(w);
		return AX_LINE_EMPTY;
	}
	first = w->v[0];
	if (strcmp(first, "exit") == 0 || strcmp(first, "quit") == 0) {
		char *end = NULL;
		long n = w->n > 1 ? strtol(w->v[1], &end, 10) : 0;

		if (w->n > 2 || (end && (*end || n < 0 || n > 255))) {
			ax_fail(err, AX_CODE_USAGE, "usage: %s [STATUS 0-255]", first);
			ax_words_free(w);
			return AX_LINE_ERROR;
		}
		/* Without a status: the script rule (last failure), 0 interactively. */
		sh->exit_status = w->n > 1 ? (int)n : sh->interactive ? 0 : sh->last_failure;
		ax_words_free(w);
		return AX_LINE_EXIT;
	}
	if (strcmp(first, "history") == 0 || strcmp(first, "clear") == 0) {
		ax_line_kind k = first[0] == 'h' ? AX_LINE_HISTORY : AX_LINE_CLEAR;

		ax_words_free(w);
		return k;
	}
	if (strcmp(first, "use") == 0) {
		if (w->n != 2) {
			ax_words_free(w);
			ax_fail(err, AX_CODE_USAGE, "usage: use SANDBOX_ID");
			return AX_LINE_ERROR;
		}
		if (prepend(w, session_use, 2, 1) < 0) {
			ax_words_free(w);
			ax_fail(err, AX_CODE_IO, "out of memory");
			return AX_LINE_ERROR;
		}
	}
	/* `help [GROUP [VERB]]` is the CLI's own help verb. */
	return AX_LINE_RUN;
}

void ax_shell_print_error(FILE *f, const ax_error *err)
{
	fprintf(f, "Error: %s\n", err->message);
	if (err->hint[0])
		fprintf(f, "%s\n", err->hint);
}

void ax_shell_history_load(ax_shell *sh)
{
	using_history();
	stifle_history(HISTORY_MAX);
	read_history(sh->history_path);
}

void ax_shell_history_add(ax_shell *sh, const char *line)
{
	HIST_ENTRY *last = history_length > 0 ? history_get(history_base + history_length - 1) : NULL;

	if (!line[0] || (last && strcmp(last->line, line) == 0))
		return;
	add_history(line);
	/* Readline set up the next line before this entry existed; without this
	 * its history position is the new entry, which the next edit would
	 * overwrite with its undo text. */
	using_history();
	/* Append as we go, so a killed shell keeps what was typed. */
	if (append_history(1, sh->history_path) != 0)
		write_history(sh->history_path);
	history_truncate_file(sh->history_path, HISTORY_MAX);
}

void ax_shell_finished(ax_shell *sh, int status, double seconds)
{
	sh->last_status = status;
	sh->last_seconds = seconds;
	sh->ran_any = true;
	if (status != 0)
		sh->last_failure = status;
}

int ax_shell_run_foreground(ax_shell *sh, const ax_words *w)
{
	ax_error err;
	ax_job job;
	int status = 0;

	ax_error_clear(&err);
	if (ax_job_start(&sh->exec, w->v, w->n, false, NULL, &job, &err) < 0) {
		ax_shell_print_error(stderr, &err);
		ax_shell_finished(sh, AX_EXIT_FAILURE, 0);
		return AX_EXIT_FAILURE;
	}
	ax_job_reap(&job, true, &status);
	ax_shell_finished(sh, status, ax_job_seconds(&job));
	return status;
}
