/*
 * Completion of a whole command line from the command table, the way
 * cobra-based tools (kubectl, gh) do it: the shell scripts pass the words
 * and print what comes back, so every verb, option and value the table
 * knows completes in bash, zsh and fish without a list to keep in step.
 *
 * Output: "CANDIDATE<TAB>description" lines, then one directive line:
 * ":files" or ":dirs" when the shell should complete local paths itself
 * (it quotes them correctly), ":none" otherwise.
 */
#include "cli/hidden.h"

#include <stdlib.h>
#include <string.h>

#include "cli/parse.h"
#include "cmd/common.h"

typedef enum directive {
	DIRECTIVE_NONE,
	DIRECTIVE_FILES,
	DIRECTIVE_DIRS,
} directive;

/* What the completion has learnt from the words so far. */
typedef struct line_state {
	const ax_registry *r;
	ax_globals g;           /* --profile, --config, --domain typed before the group */
	const char *home;
	const char *cur;        /* the word being completed */
	FILE *out;
} line_state;

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void candidate(line_state *st, const char *value, const char *desc)
{
	if (!starts(value, st->cur))
		return;
	fprintf(st->out, "%s\t%s\n", value, desc ? desc : "");
}

static void option_candidates(line_state *st, const ax_option_spec *o)
{
	char buf[80];

	for (; o && o->name; o++) {
		snprintf(buf, sizeof buf, "--%s", o->name);
		candidate(st, buf, o->help);
		/* Short forms only once the user typed a single dash. */
		if (o->short_name && strcmp(st->cur, "-") == 0) {
			snprintf(buf, sizeof buf, "-%c", o->short_name);
			candidate(st, buf, o->help);
		}
	}
}

static const ax_option_spec *find_option(const ax_option_spec *o, const char *word)
{
	size_t len;

	if (word[0] != '-' || word[1] == '\0')
		return NULL;
	if (word[1] != '-') {
		for (; o && o->name; o++)
			if (o->short_name == word[1] && word[2] == '\0')
				return o;
		return NULL;
	}
	len = strcspn(word + 2, "=");
	for (; o && o->name; o++)
		if (strlen(o->name) == len && strncmp(o->name, word + 2, len) == 0)
			return o;
	return NULL;
}

static void format_candidates(line_state *st, const ax_command_spec *c)
{
	static const ax_format all[] = { AX_FMT_TABLE, AX_FMT_JSON, AX_FMT_YAML, AX_FMT_RAW };
	size_t i;

	for (i = 0; i < sizeof all / sizeof all[0]; i++)
		if (c->formats & all[i])
			candidate(st, ax_format_name(all[i]), c->default_format == all[i] ? "output format (default)"
											    : "output format");
}

/* Candidates for a value of KIND (O: the option, for its choices); returns the directive. */
static directive value_candidates(line_state *st, ax_value_kind kind, const ax_option_spec *o)
{
	const char *const *c;

	switch (kind) {
	case AX_VAL_LOCAL_PATH:
		return DIRECTIVE_FILES;
	case AX_VAL_LOCAL_DIR:
		return DIRECTIVE_DIRS;
	case AX_VAL_SANDBOX_ID:
	case AX_VAL_COMMAND:
		/* A command's first word may be the sandbox to run it in. */
		ax_complete_ids(&st->g, st->home, false, st->cur, st->out);
		break;
	case AX_VAL_CHECKPOINT_ID:
		ax_complete_ids(&st->g, st->home, true, st->cur, st->out);
		break;
	case AX_VAL_CHECKPOINT:
		ax_complete_ids(&st->g, st->home, true, st->cur, st->out);
		candidate(st, "latest", "the newest ready checkpoint");
		break;
	case AX_VAL_PROFILE:
		ax_complete_profiles(st->home, st->cur, st->out);
		break;
	case AX_VAL_CONFIG_KEY:
		ax_complete_config_keys(st->cur, st->out);
		break;
	case AX_VAL_DURATION:
	case AX_VAL_LIFETIME:
		ax_complete_durations(st->cur, kind == AX_VAL_LIFETIME, st->out);
		break;
	case AX_VAL_CHOICE:
		for (c = o ? o->choices : NULL; c && *c; c++)
			candidate(st, *c, o->help);
		break;
	default:
		break;
	}
	return DIRECTIVE_NONE;
}

/*
 * The positional slot the word being typed fills. Optional positionals come
 * first (an optional SANDBOX_ID) and are filled only when enough words are
 * given; while typing we cannot count the words to come, so a first word
 * that looks like a sandbox id is taken as one, and the first slot offers
 * both the optional and the next required positional.
 */
static directive positional_candidates(line_state *st, const ax_command_spec *c, char **given, int ngiven)
{
	const ax_positional_spec *p = c->positionals;
	int optional = 0, total = 0, slot;
	directive d, next;

	for (; p && p->name; p++, total++)
		if (p->arity == AX_POS_OPTIONAL)
			optional++;
	p = c->positionals;
	if (!total)
		return DIRECTIVE_NONE;
	if (p[0].arity == AX_POS_VARIADIC)
		/* run and aio exec: a leading sandbox UUID selects the sandbox; the rest is the remote command. */
		return ngiven == 0 ? value_candidates(st, p[0].kind, NULL) : DIRECTIVE_NONE;
	if (ngiven == 0 && optional && optional < total) {
		d = value_candidates(st, p[0].kind, NULL);
		next = value_candidates(st, p[optional].kind, NULL);
		return next != DIRECTIVE_NONE ? next : d;
	}
	slot = ngiven;
	if (optional && ngiven > 0 && !ax_looks_like_uuid(given[0]))
		slot += optional;
	if (slot >= total)
		return p[total - 1].arity == AX_POS_VARIADIC ? value_candidates(st, p[total - 1].kind, NULL)
								: DIRECTIVE_NONE;
	return value_candidates(st, p[slot].kind, NULL);
}

/* Words after the verb: options, their values, positionals. */
static directive verb_candidates(line_state *st, const ax_command_spec *c, int argc, char **argv)
{
	char **given = calloc((size_t)argc + 1, sizeof *given);
	int i, ngiven = 0;
	bool options_done = false;
	directive d = DIRECTIVE_NONE;

	if (!given)
		return DIRECTIVE_NONE;
	for (i = 0; i < argc - 1; i++) {
		const char *w = argv[i];
		const ax_option_spec *o;

		if (options_done || w[0] != '-' || w[1] == '\0') {
			given[ngiven++] = argv[i];
			if (c->flags & AX_CMD_OPTIONS_FIRST)
				options_done = true;
			continue;
		}
		if (strcmp(w, "--") == 0) {
			options_done = true;
			continue;
		}
		if (c->formats && (strcmp(w, "-o") == 0 || strcmp(w, "--output") == 0)) {
			if (i + 1 == argc - 1) {
				format_candidates(st, c);
				goto out;
			}
			i++;
			continue;
		}
		o = find_option(c->options, w);
		if (o && o->kind != AX_VAL_NONE && !strchr(w, '=') && !(w[1] != '-' && w[2])) {
			if (i + 1 == argc - 1) {
				d = value_candidates(st, o->kind, o);
				goto out;
			}
			i++;
			/* KEY VALUE form of a KEY=VALUE option: skip the value too. */
			if (o->kind == AX_VAL_KV && !strchr(argv[i], '=') && i + 1 < argc - 1)
				i++;
		}
	}
	if (!options_done && st->cur[0] == '-') {
		option_candidates(st, c->options);
		if (c->formats)
			candidate(st, "--output", "output format");
		candidate(st, "--help", "show this help");
		goto out;
	}
	if (options_done && (c->flags & AX_CMD_OPTIONS_FIRST) && ngiven > 0)
		goto out;
	d = positional_candidates(st, c, given, ngiven);
out:
	free(given);
	return d;
}

static void group_candidates(line_state *st, bool with_help)
{
	const ax_group_spec *const *g;

	for (g = st->r->groups; *g; g++)
		candidate(st, (*g)->name, (*g)->summary);
	if (with_help)
		candidate(st, "help", "help on a group or verb");
}

/* The verb words of GROUP after the words PREFIX (0 or 1 word typed). */
static void verb_word_candidates(line_state *st, const ax_group_spec *group, const char *first)
{
	const ax_command_spec *const *v;
	char word[64];

	for (v = group->verbs; *v; v++) {
		const ax_command_spec *c = *v;
		size_t n = strcspn(c->name, " ");
		const char *desc = c->summary;

		if (!c->name[0])
			continue;
		if (first) {
			if (strlen(first) != n || strncmp(c->name, first, n) != 0 || !c->name[n])
				continue;
			snprintf(word, sizeof word, "%s", c->name + n + 1);
		} else {
			snprintf(word, sizeof word, "%.*s", (int)n, c->name);
			/* A word that opens several verbs (jupyter, mcp) is described by its group. */
			if (c->name[n])
				desc = "more verbs";
		}
		/* One line per word, even when several verbs share a first word. */
		if (!first) {
			const ax_command_spec *const *prev;
			bool seen = false;

			for (prev = group->verbs; prev < v; prev++)
				if (strncmp((*prev)->name, c->name, n) == 0 &&
				    ((*prev)->name[n] == ' ' || (*prev)->name[n] == '\0') && (*prev)->name[0])
					seen = true;
			if (seen)
				continue;
		}
		candidate(st, word, desc);
	}
}

static void record_global(line_state *st, const ax_option_spec *o, const char *value)
{
	if (strcmp(o->name, "profile") == 0)
		st->g.profile = value;
	else if (strcmp(o->name, "config") == 0)
		st->g.config_path = value;
	else if (strcmp(o->name, "domain") == 0)
		st->g.flags.domain = value;
}

static directive line_candidates(line_state *st, int argc, char **argv)
{
	const ax_option_spec *globals = ax_global_options(), *o;
	const ax_command_spec *c;
	const ax_group_spec *grp;
	int i = 0, words;

	/* Global options before the group. */
	while (i < argc - 1 && argv[i][0] == '-') {
		o = find_option(globals, argv[i]);
		if (o && o->kind != AX_VAL_NONE && !strchr(argv[i], '=')) {
			if (i + 1 == argc - 1)
				return value_candidates(st, o->kind, o);
			record_global(st, o, argv[i + 1]);
			i += 2;
			continue;
		}
		if (o && strchr(argv[i], '='))
			record_global(st, o, strchr(argv[i], '=') + 1);
		i++;
	}
	if (i == argc - 1) {
		if (st->cur[0] == '-')
			option_candidates(st, globals);
		else
			group_candidates(st, true);
		return DIRECTIVE_NONE;
	}
	if (strcmp(argv[i], "help") == 0) {
		if (i + 1 == argc - 1)
			group_candidates(st, false);
		else if (i + 2 == argc - 1 && (grp = ax_registry_group(st->r, argv[i + 1])))
			verb_word_candidates(st, grp, NULL);
		else if (i + 3 == argc - 1 && (grp = ax_registry_group(st->r, argv[i + 1])))
			verb_word_candidates(st, grp, argv[i + 2]);
		return DIRECTIVE_NONE;
	}
	grp = ax_registry_group(st->r, argv[i]);
	if (!grp)
		return DIRECTIVE_NONE;
	i++;
	/* Find the verb among the complete words before the current one. */
	c = ax_group_verb(grp, argc - 1 - i, argv + i, &words);
	if (!c) {
		if (i == argc - 1)
			verb_word_candidates(st, grp, NULL);
		else if (i + 1 == argc - 1)
			verb_word_candidates(st, grp, argv[i]);
		return DIRECTIVE_NONE;
	}
	return verb_candidates(st, c, argc - i - words, argv + i + words);
}

int ax_complete_line(const ax_registry *r, const ax_globals *g, const char *home, int argc, char **argv, FILE *out)
{
	static const char *const names[] = { ":none", ":files", ":dirs" };
	line_state st;
	directive d;

	memset(&st, 0, sizeof st);
	st.r = r;
	st.g = *g;
	st.home = home;
	st.out = out;
	st.cur = argv[argc - 1];
	d = line_candidates(&st, argc, argv);
	fprintf(out, "%s\n", names[d]);
	return AX_EXIT_OK;
}
