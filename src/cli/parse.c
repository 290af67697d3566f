/* argv -> ax_globals / ax_args, driven by the command table. */
#include "cli/parse.h"

#include <stdlib.h>
#include <string.h>

#include "lib/suggest.h"

#define MAX_CANDIDATES 64

static const ax_option_spec *find_long(const ax_option_spec *opts, const char *name, size_t len)
{
	for (; opts && opts->name; opts++)
		if (strlen(opts->name) == len && strncmp(opts->name, name, len) == 0)
			return opts;
	return NULL;
}

static const ax_option_spec *find_short(const ax_option_spec *opts, char c)
{
	for (; opts && opts->name; opts++)
		if (opts->short_name == c)
			return opts;
	return NULL;
}

static int unknown_option(const ax_option_spec *opts, const char *token, bool has_output, ax_error *err)
{
	const char *names[MAX_CANDIDATES];
	char buf[MAX_CANDIDATES][72];
	size_t n = 0, len = strcspn(token, "=");
	const char *hint;
	char word[128];

	for (; opts && opts->name && n < MAX_CANDIDATES - 2; opts++) {
		snprintf(buf[n], sizeof buf[n], "--%s", opts->name);
		names[n] = buf[n];
		n++;
	}
	if (has_output) {
		snprintf(buf[n], sizeof buf[n], "--output");
		names[n] = buf[n];
		n++;
	}
	snprintf(buf[n], sizeof buf[n], "--help");
	names[n] = buf[n];
	n++;
	snprintf(word, sizeof word, "%.*s", (int)(len < 120 ? len : 120), token);
	hint = strncmp(word, "--", 2) == 0 ? ax_suggest(word, names, n) : NULL;
	if (hint)
		return ax_fail(err, AX_CODE_USAGE, "unknown option '%s' (did you mean '%s'?)", word, hint);
	return ax_fail(err, AX_CODE_USAGE, "unknown option '%s'", word);
}

static void store(json_t *opts, const ax_option_spec *o, json_t *v)
{
	if (o->repeatable) {
		json_t *arr = json_object_get(opts, o->name);

		if (!arr) {
			arr = json_array();
			json_object_set_new(opts, o->name, arr);
		}
		json_array_append_new(arr, v);
	} else {
		json_object_set_new(opts, o->name, v);
	}
}

/*
 * Take option O from ARGV[*i]. INLINE is the text after '=' or after a short
 * letter, or NULL. Values are the next token verbatim, even when it starts
 * with '-' (so `--env X --no-sandbox` sets X to "--no-sandbox").
 */
static int take_option(const ax_option_spec *o, const char *inline_val, int argc, char **argv, int *i,
		       json_t *opts, ax_error *err)
{
	const char *value = inline_val;
	json_t *v;

	if (o->kind == AX_VAL_NONE) {
		if (inline_val)
			return ax_fail(err, AX_CODE_USAGE, "option --%s takes no value", o->name);
		store(opts, o, json_true());
		return 0;
	}
	if (!value) {
		if (*i + 1 >= argc)
			return ax_fail(err, AX_CODE_USAGE, "option --%s requires a value (%s)", o->name,
				       o->metavar ? o->metavar : "VALUE");
		value = argv[++*i];
	}
	if (o->kind == AX_VAL_KV) {
		const char *eq = strchr(value, '=');
		json_t *k, *val;

		if (eq) {
			k = json_stringn(value, (size_t)(eq - value));
			val = json_string(eq + 1);
		} else {
			if (*i + 1 >= argc)
				return ax_fail(err, AX_CODE_USAGE,
					       "option --%s requires KEY=VALUE or KEY VALUE", o->name);
			k = json_string(value);
			val = json_string(argv[++*i]);
		}
		if (!k || !val || !json_string_length(k)) {
			json_decref(k);
			json_decref(val);
			return ax_fail(err, AX_CODE_USAGE, "invalid KEY=VALUE for --%s: '%s'", o->name, value);
		}
		store(opts, o, json_pack("[oo]", k, val));
		return 0;
	}
	v = ax_value_parse(o, value, err);
	if (!v)
		return -1;
	store(opts, o, v);
	return 0;
}

static int take_format(const ax_command_spec *cmd, const char *value, ax_args *out, ax_error *err)
{
	static const ax_format all[] = { AX_FMT_TABLE, AX_FMT_JSON, AX_FMT_YAML, AX_FMT_RAW };
	ax_format f = ax_format_from_name(value);
	char allowed[64] = "";
	size_t i, off = 0;

	if (f && (cmd->formats & f)) {
		out->format = f;
		return 0;
	}
	for (i = 0; i < 4; i++)
		if (cmd->formats & all[i])
			off += (size_t)snprintf(allowed + off, sizeof allowed - off, "%s%s", off ? ", " : "",
						ax_format_name(all[i]));
	return ax_fail(err, AX_CODE_USAGE, "invalid value '%s' for -o/--output: choose from %s",
		       value, allowed);
}

static int missing_format(ax_error *err)
{
	return ax_fail(err, AX_CODE_USAGE, "option -o/--output requires a value (table, json, yaml or raw)");
}

static int assign_positionals(const ax_command_spec *cmd, json_t *given, ax_args *out, ax_error *err)
{
	const ax_positional_spec *p;
	size_t required = 0, optional = 0, n = json_array_size(given), next = 0, extra;
	bool variadic = false;

	for (p = cmd->positionals; p && p->name; p++) {
		if (p->arity == AX_POS_REQUIRED)
			required++;
		else if (p->arity == AX_POS_OPTIONAL)
			optional++;
		else
			variadic = true;
	}
	if (n < required + (variadic ? 1 : 0)) {
		for (p = cmd->positionals; p && p->name; p++)
			if (p->arity != AX_POS_OPTIONAL) {
				if (n == 0)
					return ax_fail(err, AX_CODE_USAGE, "missing argument %s", p->name);
				n--;
			}
		return ax_fail(err, AX_CODE_USAGE, "missing argument");
	}
	if (!variadic && n > required + optional)
		return ax_fail(err, AX_CODE_USAGE, "unexpected argument '%s'",
			       json_string_value(json_array_get(given, required + optional)));
	extra = n - required - (variadic ? 1 : 0);
	for (p = cmd->positionals; p && p->name; p++) {
		if (p->arity == AX_POS_REQUIRED) {
			json_object_set(out->pos, p->name, json_array_get(given, next++));
		} else if (p->arity == AX_POS_OPTIONAL) {
			if (extra > 0 && (!variadic || extra > 0)) {
				json_object_set(out->pos, p->name, json_array_get(given, next++));
				extra--;
			}
		} else {
			json_t *rest = json_array();

			while (next < json_array_size(given))
				json_array_append(rest, json_array_get(given, next++));
			json_object_set_new(out->pos, p->name, rest);
		}
	}
	return 0;
}

/* Where ax_args_parse is in the line. */
typedef struct parse_state {
	const ax_command_spec *cmd;
	int argc;
	char **argv;
	int i;
	bool options_done;
	json_t *given;      /* positionals, in order */
} parse_state;

/* Take the token at st->i (and the values it consumes). */
static int take_token(parse_state *st, ax_args *out, ax_error *err)
{
	const ax_command_spec *cmd = st->cmd;
	const char *t = st->argv[st->i];
	const ax_option_spec *o;

	if (st->options_done || t[0] != '-' || t[1] == '\0') {
		json_t *s = json_string(t);

		if (!s)
			return ax_fail(err, AX_CODE_USAGE, "argument %d is not valid UTF-8", st->i + 1);
		json_array_append_new(st->given, s);
		if (cmd->flags & AX_CMD_OPTIONS_FIRST)
			st->options_done = true;
		return 0;
	}
	if (strcmp(t, "--") == 0) {
		st->options_done = true;
		return 0;
	}
	if (strcmp(t, "-h") == 0 || strcmp(t, "--help") == 0) {
		out->help = true;
		return 0;
	}
	if (t[1] == '-') {
		const char *name = t + 2, *eq = strchr(name, '=');
		size_t len = eq ? (size_t)(eq - name) : strlen(name);

		if (cmd->formats && len == 6 && strncmp(name, "output", 6) == 0) {
			const char *v = eq ? eq + 1 : (st->i + 1 < st->argc ? st->argv[++st->i] : NULL);

			return v ? take_format(cmd, v, out, err) : missing_format(err);
		}
		o = find_long(cmd->options, name, len);
		if (!o)
			return unknown_option(cmd->options, t, cmd->formats != 0, err);
		return take_option(o, eq ? eq + 1 : NULL, st->argc, st->argv, &st->i, out->opts, err);
	}
	/* Short option: -x, -xVALUE or -x VALUE. */
	if (cmd->formats && t[1] == 'o') {
		const char *v = t[2] ? t + 2 : (st->i + 1 < st->argc ? st->argv[++st->i] : NULL);

		return v ? take_format(cmd, v, out, err) : missing_format(err);
	}
	o = find_short(cmd->options, t[1]);
	if (!o)
		return unknown_option(cmd->options, t, cmd->formats != 0, err);
	return take_option(o, t[2] ? t + 2 : NULL, st->argc, st->argv, &st->i, out->opts, err);
}

/* Options the table marks required: given, and not as "". */
static int check_required(const ax_command_spec *cmd, const ax_args *a, ax_error *err)
{
	const ax_option_spec *o;

	for (o = cmd->options; o && o->name; o++) {
		const json_t *v = json_object_get(a->opts, o->name);

		if (o->required && (!v || (json_is_string(v) && !json_string_length(v))))
			return ax_fail(err, AX_CODE_USAGE, "missing option --%s %s", o->name,
				       o->metavar ? o->metavar : "VALUE");
	}
	return 0;
}

/* The table's defaults of the options not given, typed as given ones are. */
static int fill_defaults(const ax_command_spec *cmd, ax_args *a, ax_error *err)
{
	const ax_option_spec *o;

	for (o = cmd->options; o && o->name; o++) {
		json_t *v;

		if (!o->defval || json_object_get(a->opts, o->name))
			continue;
		v = ax_value_parse(o, o->defval, err);
		if (!v)
			return -1;
		json_object_set_new(a->defaults, o->name, v);
	}
	return 0;
}

int ax_args_parse(const ax_command_spec *cmd, int argc, char **argv, ax_args *out, ax_error *err)
{
	parse_state st = { .cmd = cmd, .argc = argc, .argv = argv, .given = json_array() };
	ax_error later;
	bool failed = false;

	memset(out, 0, sizeof *out);
	out->cmd = cmd;
	out->opts = json_object();
	out->pos = json_object();
	out->defaults = json_object();
	out->format = cmd->default_format;
	/* After the first error the rest of the line is still read, into LATER,
	 * so that an -o json after the mistake still makes the error JSON. */
	for (st.i = 0; st.i < argc; st.i++)
		if (take_token(&st, out, failed ? &later : err) < 0)
			failed = true;
	if (!failed && !out->help &&
	    (assign_positionals(cmd, st.given, out, err) < 0 || check_required(cmd, out, err) < 0))
		failed = true;
	if (!failed && fill_defaults(cmd, out, err) < 0)
		failed = true;
	json_decref(st.given);
	if (failed) {
		ax_args_free(out);
		return -1;
	}
	return 0;
}

void ax_args_free(ax_args *a)
{
	json_decref(a->opts);
	json_decref(a->pos);
	json_decref(a->defaults);
	a->opts = a->pos = a->defaults = NULL;
}

/* Before the group; parsed here into ax_globals. */
static const char *const protocol_choices[] = { "http", "https", NULL };

static const ax_option_spec global_options[] = {
	{ .name = "profile", .kind = AX_VAL_PROFILE, .metavar = "NAME", .help = "use $ALLOX_HOME/NAME.toml" },
	{ .name = "config", .kind = AX_VAL_LOCAL_PATH, .metavar = "PATH",
	  .help = "use this configuration file (wins over --profile)" },
	{ .name = "domain", .kind = AX_VAL_TEXT, .metavar = "DOMAIN",
	  .help = "lifecycle server: local, unix:/path, host:port or URL" },
	{ .name = "api-key", .kind = AX_VAL_TEXT, .metavar = "KEY", .help = "OpenSandbox API key" },
	{ .name = "protocol", .kind = AX_VAL_CHOICE, .metavar = "PROTOCOL", .choices = protocol_choices,
	  .help = "http or https" },
	{ .name = "request-timeout", .kind = AX_VAL_INT, .metavar = "SECONDS",
	  .help = "timeout of each server request" },
	{ .name = "use-server-proxy", .kind = AX_VAL_NONE, .help = "ask the server for proxied endpoints" },
	{ .name = "no-use-server-proxy", .kind = AX_VAL_NONE, .help = "use direct endpoints" },
	{ .name = "verbose", .short_name = 'v', .kind = AX_VAL_NONE, .help = "diagnostics on stderr" },
	{ .name = "no-color", .kind = AX_VAL_NONE, .help = "no colour (also: NO_COLOR=1)" },
	{ .name = "version", .kind = AX_VAL_NONE, .help = "print the version and exit" },
	{ .name = "help", .short_name = 'h', .kind = AX_VAL_NONE, .help = "show help and exit" },
	AX_OPTIONS_END,
};

const ax_option_spec *ax_global_options(void)
{
	return global_options;
}

int ax_globals_parse(int argc, char **argv, ax_globals *g, int *consumed, ax_error *err)
{
	json_t *opts = json_object();
	const ax_option_spec *spec = ax_global_options();
	int i;

	memset(g, 0, sizeof *g);
	g->flags.use_server_proxy = -1;
	for (i = 0; i < argc; i++) {
		const char *t = argv[i];
		const ax_option_spec *o;
		const char *eq = NULL, *v;

		if (t[0] != '-' || t[1] == '\0')
			break;
		if (strcmp(t, "--") == 0) {
			i++;
			break;
		}
		if (t[1] == '-') {
			eq = strchr(t + 2, '=');
			o = find_long(spec, t + 2, eq ? (size_t)(eq - t - 2) : strlen(t + 2));
			if (!o) {
				unknown_option(spec, t, false, err);
				goto fail;
			}
		} else {
			o = find_short(spec, t[1]);
			if (!o || t[2]) {
				ax_fail(err, AX_CODE_USAGE, "unknown option '%s'", t);
				goto fail;
			}
		}
		if (take_option(o, eq ? eq + 1 : NULL, argc, argv, &i, opts, err) < 0)
			goto fail;
		/* Values point into argv, which outlives the globals. */
		v = eq ? eq + 1 : argv[i];
		if (strcmp(o->name, "profile") == 0)
			g->profile = v;
		else if (strcmp(o->name, "config") == 0)
			g->config_path = v;
		else if (strcmp(o->name, "domain") == 0)
			g->flags.domain = v;
		else if (strcmp(o->name, "api-key") == 0)
			g->flags.api_key = v;
		else if (strcmp(o->name, "protocol") == 0)
			g->flags.protocol = v;
		else if (strcmp(o->name, "request-timeout") == 0)
			g->flags.request_timeout = v;
		else if (strcmp(o->name, "use-server-proxy") == 0)
			g->flags.use_server_proxy = 1;
		else if (strcmp(o->name, "no-use-server-proxy") == 0)
			g->flags.use_server_proxy = 0;
		else if (strcmp(o->name, "verbose") == 0)
			g->verbose = true;
		else if (strcmp(o->name, "no-color") == 0)
			g->flags.no_color = true;
		else if (strcmp(o->name, "version") == 0)
			g->version = true;
		else if (strcmp(o->name, "help") == 0)
			g->help = true;
	}
	json_decref(opts);
	*consumed = i;
	return 0;
fail:
	json_decref(opts);
	return -1;
}
