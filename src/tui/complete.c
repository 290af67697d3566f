/* Context-sensitive completion, in the manner of psql's tab-complete. */
#include "complete.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <readline/readline.h>

/* Readline's completion hooks have no user pointer. */
static ax_shell *completing;
static bool on_demand;

typedef struct list {
	char **v;
	size_t n, cap;
	const char *prefix;
} list;

static void add(list *l, const char *s)
{
	size_t i;

	if (!s || strncmp(s, l->prefix, strlen(l->prefix)) != 0)
		return;
	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return;
	if (l->n + 2 > l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		char **v = realloc(l->v, cap * sizeof *v);

		if (!v)
			return;
		l->v = v;
		l->cap = cap;
	}
	if ((l->v[l->n] = strdup(s)))
		l->n++;
	l->v[l->n] = NULL;
}

static void add_sandboxes(ax_shell *sh, list *l)
{
	size_t i;
	json_t *row;

	if (on_demand && time(NULL) - sh->catalog.refreshed_at > 5)
		ax_catalog_refresh_blocking(&sh->catalog, &sh->exec, sh->ctx->home);
	json_array_foreach(sh->catalog.sandboxes, i, row)
		add(l, json_string_value(json_object_get(row, "id")));
}

static void add_checkpoints(ax_shell *sh, list *l)
{
	size_t i;
	json_t *row;

	if (on_demand && time(NULL) - sh->catalog.refreshed_at > 5)
		ax_catalog_refresh_blocking(&sh->catalog, &sh->exec, sh->ctx->home);
	json_array_foreach(sh->catalog.checkpoints, i, row) {
		add(l, json_string_value(json_object_get(row, "id")));
		add(l, json_string_value(json_object_get(row, "name")));
	}
}

static void add_groups(list *l)
{
	static const char *const shell_words[] = { "help", "use", "history", "clear", "exit", "quit", NULL };
	const ax_group_spec *g;
	const char *const *w;

	for (g = ax_groups(); g->name; g++)
		add(l, g->name);
	for (w = shell_words; *w; w++)
		add(l, *w);
}

/* First words of GROUP's verbs ("jupyter" for "jupyter run"); after FIRST,
 * the second words of verbs starting with it. */
static void add_verbs(list *l, const char *group, const char *first)
{
	const ax_command_spec *c;
	char word[64];

	for (c = ax_commands(); c->name; c++) {
		const char *sp = strchr(c->name, ' ');

		if (strcmp(c->group, group) != 0 || !c->name[0])
			continue;
		if (first) {
			if (sp && strncmp(c->name, first, (size_t)(sp - c->name)) == 0 &&
			    strlen(first) == (size_t)(sp - c->name))
				add(l, sp + 1);
			continue;
		}
		snprintf(word, sizeof word, "%.*s", (int)(sp ? sp - c->name : (long)strlen(c->name)), c->name);
		add(l, word);
	}
}

static void add_options(list *l, const ax_command_spec *c)
{
	const ax_option_spec *o;
	char buf[80];

	for (o = c->options; o && o->name; o++) {
		snprintf(buf, sizeof buf, "--%s", o->name);
		add(l, buf);
	}
	if (c->formats)
		add(l, "--output");
	add(l, "--help");
}

static const ax_option_spec *option_named(const ax_command_spec *c, const char *word)
{
	const ax_option_spec *o;

	if (word[0] != '-')
		return NULL;
	for (o = c->options; o && o->name; o++)
		if ((word[1] == '-' && strcmp(word + 2, o->name) == 0) ||
		    (word[1] == o->short_name && word[1] && !word[2]))
			return o;
	return NULL;
}

static void add_formats(list *l, unsigned formats)
{
	static const ax_format all[] = { AX_FMT_TABLE, AX_FMT_JSON, AX_FMT_YAML, AX_FMT_RAW };
	size_t i;

	for (i = 0; i < 4; i++)
		if (formats & all[i])
			add(l, ax_format_name(all[i]));
}

static bool has_positional(const ax_command_spec *c, const char *prefix)
{
	const ax_positional_spec *p;

	for (p = c->positionals; p && p->name; p++)
		if (strncmp(p->name, prefix, strlen(prefix)) == 0)
			return true;
	return false;
}

/* Returns false when the word is a local path. */
static bool complete_args(ax_shell *sh, list *l, const ax_command_spec *c, const char *prev, bool options_over)
{
	const ax_option_spec *o = option_named(c, prev);

	if (c->formats && (strcmp(prev, "-o") == 0 || strcmp(prev, "--output") == 0)) {
		add_formats(l, c->formats);
		return true;
	}
	if (o && o->kind != AX_VAL_NONE) {
		const char *const *ch;

		if (o->kind == AX_VAL_CHOICE) {
			for (ch = o->choices; *ch; ch++)
				add(l, *ch);
			return true;
		}
		if (o->metavar && strcmp(o->metavar, "SANDBOX_ID") == 0) {
			add_sandboxes(sh, l);
			return true;
		}
		return !(o->metavar && (strstr(o->metavar, "FILE") || strstr(o->metavar, "DIR")));
	}
	if (l->prefix[0] == '-' && !options_over) {
		add_options(l, c);
		return true;
	}
	if (has_positional(c, "SANDBOX_ID") || has_positional(c, "COMMAND"))
		add_sandboxes(sh, l);
	if (has_positional(c, "CHECKPOINT"))
		add_checkpoints(sh, l);
	if (has_positional(c, "CHECKPOINT") && strcmp(c->name, "restore") == 0)
		add(l, "latest");
	/* Commands that take local or remote paths fall back to local paths. */
	return l->n > 0 || !(has_positional(c, "LOCAL") || has_positional(c, "PATH") || has_positional(c, "COMMAND") ||
			     has_positional(c, "REMOTE"));
}

char **ax_complete_candidates(ax_shell *sh, const char *line_before, const char *text)
{
	list l = { NULL, 0, 0, text };
	ax_words w;
	ax_error err;
	const ax_group_spec *g;
	const ax_command_spec *c;
	int used = 0, i;
	bool options_over = false, words_only = true;

	if (ax_split_line(line_before, true, &w, &err) < 0)
		return NULL;
	if (w.n == 0) {
		add_groups(&l);
	} else if (strcmp(w.v[0], "use") == 0) {
		if (w.n == 1)
			add_sandboxes(sh, &l);
	} else if (strcmp(w.v[0], "help") == 0) {
		if (w.n == 1)
			add_groups(&l);
		else if (w.n == 2)
			add_verbs(&l, w.v[1], NULL);
	} else if ((g = ax_group_find(w.v[0]))) {
		c = ax_command_find(g->name, w.n - 1, w.v + 1, &used);
		if (w.n == 1 && (!c || c->name[0])) {
			add_verbs(&l, g->name, NULL);
		} else if (!c && w.n == 2) {
			add_verbs(&l, g->name, w.v[1]);
		} else if (c && strchr(c->name, ' ') && used == 0) {
			add_verbs(&l, g->name, w.v[1]);
		} else if (c) {
			for (i = 1 + used; i < w.n; i++) {
				const ax_option_spec *o = option_named(c, w.v[i]);

				if (strcmp(w.v[i], "--") == 0 ||
				    (w.v[i][0] != '-' && (c->flags & AX_CMD_OPTIONS_FIRST)))
					options_over = true;
				if (o && o->kind != AX_VAL_NONE && i + 1 < w.n)
					i++;
			}
			words_only = complete_args(sh, &l, c, w.n > 1 + used ? w.v[w.n - 1] : "", options_over);
		}
	}
	ax_words_free(&w);
	if (!words_only && l.n == 0) {
		free(l.v);
		return NULL;
	}
	if (!l.v)
		l.v = calloc(1, sizeof *l.v);
	return l.v;
}

/* Readline wants the common prefix first, then the matches. */
static char **attempt(const char *text, int start, int end)
{
	char *before = strndup(rl_line_buffer, (size_t)start);
	char **cands, **out;
	size_t n = 0, i, common;

	(void)end;
	if (!before)
		return NULL;
	cands = ax_complete_candidates(completing, before, text);
	free(before);
	if (!cands) /* a local path: readline's filename completion */
		return NULL;
	rl_attempted_completion_over = 1;
	while (cands[n])
		n++;
	if (n == 0) {
		free(cands);
		return NULL;
	}
	out = calloc(n + 2, sizeof *out);
	if (!out) {
		for (i = 0; i < n; i++)
			free(cands[i]);
		free(cands);
		return NULL;
	}
	common = strlen(cands[0]);
	for (i = 1; i < n; i++) {
		size_t k = 0;

		while (k < common && cands[i][k] == cands[0][k])
			k++;
		common = k;
	}
	out[0] = strndup(cands[0], common);
	if (n > 1)
		memcpy(out + 1, cands, n * sizeof *out);
	else
		free(cands[0]);
	free(cands);
	return out;
}

void ax_complete_install(ax_shell *sh, bool refresh_on_demand)
{
	completing = sh;
	on_demand = refresh_on_demand;
	rl_readline_name = "allox";
	rl_attempted_completion_function = attempt;
	rl_completer_quote_characters = "'\"";
	rl_basic_word_break_characters = " \t\n";
	rl_completer_word_break_characters = " \t\n";
}
