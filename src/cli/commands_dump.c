/* `allox-cli __commands`: the command table as JSON, for the docs drift check. */
#include "cli/hidden.h"

#include <string.h>

#include "config.h"
#include "cli/parse.h"
#include "lib/ax_error.h"

static json_t *string_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *options_json(const ax_option_spec *o)
{
	json_t *list = json_array();

	for (; o && o->name; o++) {
		char shortname[3] = { '-', o->short_name, '\0' };
		json_t *choices = json_null();
		const char *const *c;

		if (o->choices) {
			choices = json_array();
			for (c = o->choices; *c; c++)
				json_array_append_new(choices, json_string(*c));
		}
		json_array_append_new(list, json_pack("{s:s, s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:b, s:b, s:s, s:o}",
						      "long", o->name, "short",
						      string_or_null(o->short_name ? shortname : NULL), "kind",
						      ax_value_kind_type(o->kind), "metavar", string_or_null(o->metavar),
						      "choices", choices, "default", string_or_null(o->defval), "min",
						      string_or_null(o->min), "max", string_or_null(o->max), "required",
						      o->required, "repeatable", o->repeatable, "values",
						      ax_value_kind_name(o->kind), "help", string_or_null(o->help)));
	}
	return list;
}

static json_t *positionals_json(const ax_positional_spec *p)
{
	static const char *const kinds[] = { "required", "optional", "variadic" };
	json_t *list = json_array();

	for (; p && p->name; p++)
		json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:o}", "name", p->name, "kind", kinds[p->arity],
						      "values", ax_value_kind_name(p->kind), "help",
						      string_or_null(p->help)));
	return list;
}

static json_t *formats_json(unsigned mask)
{
	static const ax_format all[] = { AX_FMT_TABLE, AX_FMT_JSON, AX_FMT_YAML, AX_FMT_RAW };
	json_t *list = json_array();
	size_t i;

	for (i = 0; i < sizeof all / sizeof all[0]; i++)
		if (mask & all[i])
			json_array_append_new(list, json_string(ax_format_name(all[i])));
	return list;
}

static const char *target_name(ax_target_kind t)
{
	static const char *const names[] = {
		[AX_TARGET_NONE] = "none", [AX_TARGET_SERVER] = "server", [AX_TARGET_SANDBOX] = "sandbox",
		[AX_TARGET_EXECD] = "execd", [AX_TARGET_AIO] = "aio",
	};

	return names[t];
}

static json_t *verb_json(const ax_command_spec *c)
{
	json_t *examples = json_array();
	const char *const *e;
	json_t *v;

	for (e = c->examples; e && *e; e++)
		json_array_append_new(examples, json_string(*e));
	v = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:b, s:s, s:o, s:o, s:o, s:o}", "group", c->group, "name",
		      c->name, "summary", c->summary, "description", string_or_null(c->description), "formats",
		      formats_json(c->formats), "default_format",
		      c->formats ? json_string(ax_format_name(c->default_format)) : json_null(), "options_first",
		      (c->flags & AX_CMD_OPTIONS_FIRST) != 0, "target", target_name(c->target), "target_all",
		      string_or_null(c->target_all), "positionals", positionals_json(c->positionals), "options",
		      options_json(c->options), "examples", examples);
	return v;
}

static json_t *config_keys_json(void)
{
	static const char *const types[] = { "string", "protocol", "int", "bool", "duration", "timeout", "list", "cpu",
					     "size" };
	const ax_conf_key *k;
	json_t *list = json_array();

	for (k = ax_conf_keys(); k->key; k++) {
		json_t *env = json_array();
		size_t i;

		for (i = 0; i < 2 && k->env[i]; i++)
			json_array_append_new(env, json_string(k->env[i]));
		json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:o, s:o, s:s}", "key", k->key, "name", k->name,
						      "type", types[k->type], "default", string_or_null(k->def), "env",
						      env, "help", k->help));
	}
	return list;
}

/* The codes of -o json errors with their exit statuses, for the docs check. */
static json_t *error_codes_json(void)
{
	json_t *list = json_array();
	int c;

	for (c = AX_CODE_NONE + 1; c < AX_CODE_COUNT; c++)
		json_array_append_new(list, json_pack("{s:s, s:i}", "code", ax_code_name((ax_code)c), "exit",
						      ax_code_exit((ax_code)c)));
	return list;
}

json_t *ax_commands_json(const ax_registry *r)
{
	const ax_group_spec *const *g;
	const ax_command_spec *const *c;
	json_t *groups = json_array();

	for (g = r->groups; *g; g++) {
		json_t *verbs = json_array();

		for (c = (*g)->verbs; *c; c++)
			json_array_append_new(verbs, verb_json(*c));
		json_array_append_new(groups, json_pack("{s:s, s:s, s:o}", "name", (*g)->name, "summary", (*g)->summary,
							"verbs", verbs));
	}
	return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o}", "program", "allox-cli", "version", PACKAGE_VERSION,
			 "global_options", options_json(ax_global_options()), "groups", groups, "config_keys",
			 config_keys_json(), "error_codes", error_codes_json());
}
