/* config init | show | set | path */
#include "cmd/command.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fs.h"
#include "lib/suggest.h"
#include "lib/toml.h"
#include "cmd/groups.h"

static int effective_path(ax_ctx *ctx, char **path, ax_error *err)
{
	return ax_config_path(ctx->home, ctx->globals->profile, ctx->globals->config_path, path, err);
}

static int text_result(ax_result *res, ax_error *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int text_result(ax_result *res, ax_error *err, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&res->text, fmt, ap);
	va_end(ap);
	if (n < 0) {
		res->text = NULL;
		return ax_fail(err, AX_CODE_IO, "out of memory");
	}
	res->kind = AX_RESULT_TEXT;
	return 0;
}

static int cmd_config_path(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	char *path;
	int rc;

	if (effective_path(ctx, &path, err) < 0)
		return -1;
	rc = text_result(res, err, "%s", path);
	free(path);
	return rc;
}

static int cmd_config_init(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	char *path, *text;
	int rc;

	if (effective_path(ctx, &path, err) < 0)
		return -1;
	if (access(path, F_OK) == 0 && !ax_arg_flag(args, "force")) {
		rc = text_result(res, err, "Config already exists: %s (use --force to overwrite)", path);
		free(path);
		return rc;
	}
	text = ax_config_template();
	if (!text || ax_mkdir_parent(path, 0700, err) < 0 ||
	    ax_write_file_atomic(path, text, strlen(text), 0600, err) < 0) {
		if (!text)
			ax_fail(err, AX_CODE_IO, "out of memory");
		free(text);
		free(path);
		return -1;
	}
	free(text);
	rc = text_result(res, err, "Created %s", path);
	free(path);
	return rc;
}

static json_t *masked_copy(const json_t *v)
{
	char *m;
	json_t *s;

	if (!json_is_string(v))
		return json_incref((json_t *)v);
	m = ax_mask_secret(json_string_value(v));
	s = json_string(m ? m : "****");
	free(m);
	return s;
}

static int cmd_config_show(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	ax_config cfg;
	char *path;
	json_t *resolved, *file, *rows;
	const ax_conf_key *k;
	static const char *const columns[] = { "key", "value", "source", NULL };

	if (effective_path(ctx, &path, err) < 0)
		return -1;
	if (ax_config_load(&cfg, path, &ctx->globals->flags, err) < 0) {
		free(path);
		ax_config_free(&cfg);
		return -1;
	}
	free(path);
	resolved = json_deep_copy(cfg.resolved);
	file = json_deep_copy(cfg.file);
	json_object_set_new(resolved, "api_key", masked_copy(json_object_get(resolved, "api_key")));
	if (json_object_get(json_object_get(file, "connection"), "api_key"))
		json_object_set_new(json_object_get(file, "connection"), "api_key",
				    masked_copy(json_object_get(json_object_get(file, "connection"), "api_key")));

	/* People get one row per key, value and origin side by side; programs the document. */
	rows = json_array();
	for (k = ax_conf_keys(); k->key; k++) {
		json_t *v = json_object_get(resolved, k->name), *cell;

		if (json_is_string(v) || json_is_null(v)) {
			cell = json_incref(v);
		} else {
			char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);

			cell = json_string(text ? text : "");
			free(text);
		}
		json_array_append_new(rows, json_pack("{s:s, s:o, s:O}", "key", k->key, "value", cell, "source",
						      json_object_get(cfg.sources, k->name)));
	}
	res->human = rows;
	res->view.columns = columns;
	/* The title carries the path; it must outlive cfg. */
	if (text_result(res, err, "Config file: %s", cfg.path) < 0) {
		json_decref(resolved);
		json_decref(file);
		ax_config_free(&cfg);
		return -1;
	}
	res->kind = AX_RESULT_DATA;
	res->view.title = res->text;
	res->data = json_pack("{s:s, s:o, s:O, s:o}", "config_path", cfg.path, "resolved", resolved, "sources",
			      cfg.sources, "file", file);
	ax_config_free(&cfg);
	return 0;
}

static int key_error(const char *key, ax_error *err)
{
	const char *names[64];
	const ax_conf_key *k;
	const char *hint;
	size_t n = 0;

	for (k = ax_conf_keys(); k->key && n < 64; k++)
		names[n++] = k->key;
	hint = ax_suggest(key, names, n);
	if (!strchr(key, '.'))
		ax_fail(err, AX_CODE_USAGE, "Key must be section.name (e.g. connection.domain), got '%s'", key);
	else if (hint)
		ax_fail(err, AX_CODE_USAGE, "Unknown key '%s' (did you mean '%s'?)", key, hint);
	else
		ax_fail(err, AX_CODE_USAGE, "Unknown key '%s'", key);
	ax_error_hint(err, "Run 'allox-cli config show' to list the keys.");
	return -1;
}

static int cmd_config_set(ax_ctx *ctx, const ax_args *args, ax_result *res, ax_error *err)
{
	const char *key = ax_arg_string(args, "KEY"), *text = ax_arg_string(args, "VALUE");
	const ax_conf_key *k = ax_conf_find(key);
	char *path = NULL, *doc = NULL, *edited = NULL;
	size_t len = 0;
	json_t *value, *parsed = NULL;
	ax_error perr;
	int rc = -1, exists;

	if (!k)
		return key_error(key, err);
	/* Everything is checked before the file is touched: a bad value leaves it byte-for-byte as it was. */
	value = ax_conf_value_from_text(k, text, err);
	if (!value)
		return -1;
	if (effective_path(ctx, &path, err) < 0)
		goto out;
	exists = ax_read_file(path, &doc, &len, err);
	if (exists < 0)
		goto out;
	if (exists == 1) {
		doc = ax_config_template();
		if (!doc) {
			ax_fail(err, AX_CODE_IO, "out of memory");
			goto out;
		}
		len = strlen(doc);
	} else if (toml_parse(doc, len, &parsed, &perr) < 0) {
		ax_fail(err, AX_CODE_CONFIG, "%s:%s", path, perr.message);
		goto out;
	}
	if (toml_set(doc, len, key, value, &edited, err) < 0) {
		snprintf(perr.message, sizeof perr.message, "%s", err->message);
		ax_fail(err, AX_CODE_CONFIG, "%s: cannot set %s: %s", path, key, perr.message);
		goto out;
	}
	if (ax_mkdir_parent(path, 0700, err) < 0 ||
	    ax_write_file_atomic(path, edited, strlen(edited), 0600, err) < 0)
		goto out;
	{
		size_t n = strlen(key) + strlen(path) + 16;

		res->kind = AX_RESULT_TEXT;
		res->text = malloc(n);
		if (!res->text) {
			ax_fail(err, AX_CODE_IO, "out of memory");
			goto out;
		}
		snprintf(res->text, n, "Updated %s in %s", key, path);
	}
	rc = 0;
out:
	json_decref(value);
	json_decref(parsed);
	free(path);
	free(doc);
	free(edited);
	return rc;
}

/* The table entries of the verbs above (cmd/command.h). */

static const char *const config_show_examples[] = {
	"allox-cli config show",
	"allox-cli --profile dev config show -o json",
	NULL,
};

static const char *const config_set_examples[] = {
	"allox-cli config set connection.domain localhost:8080",
	"allox-cli config set checkpoint.enabled true",
	"allox-cli config set checkpoint.operations run,aio.exec",
	"allox-cli config set defaults.entrypoint '[\"/bin/sh\", \"-c\", \"sleep infinity\"]'",
	NULL,
};

static const ax_option_spec config_init_options[] = {
	{ .name = "force", .short_name = 'f', .kind = AX_VAL_NONE, .help = "overwrite an existing file" },
	AX_OPTIONS_END,
};

static const ax_positional_spec config_set_positionals[] = {
	{ .name = "KEY", .arity = AX_POS_REQUIRED, .kind = AX_VAL_CONFIG_KEY,
	  .help = "section.name, e.g. connection.domain" },
	{ .name = "VALUE", .arity = AX_POS_REQUIRED, .kind = AX_VAL_TEXT, .help = "checked against the key's type" },
	AX_POSITIONALS_END,
};

static const ax_command_spec config_init_verb = {
	.group = "config", .name = "init", .summary = "Write a commented configuration template",
	.description = "Writes every key commented out with its default. An existing file is kept unless --force "
	"is given.",
	.options = config_init_options, .flags = AX_CMD_NO_CONFIG, .handler = cmd_config_init,
};

static const ax_command_spec config_show_verb = {
	.group = "config", .name = "show", .summary = "Show resolved settings and where each came from",
	.description = "Each value is shown with its source: flag, env:VARIABLE, file or default. The API key is "
	"masked.",
	.formats = AX_FMT_TABLE | AX_FMT_JSON | AX_FMT_YAML, .default_format = AX_FMT_TABLE,
	.flags = AX_CMD_NO_CONFIG, .handler = cmd_config_show, .examples = config_show_examples,
};

static const ax_command_spec config_set_verb = {
	.group = "config", .name = "set", .summary = "Set one key, keeping the rest of the file",
	.description = "VALUE is checked against the key's type (boolean, integer, duration, list as a,b or a "
	"TOML array). The file is edited in place: comments and order survive, and it is replaced atomically.",
	.positionals = config_set_positionals, .flags = AX_CMD_NO_CONFIG, .handler = cmd_config_set,
	.examples = config_set_examples,
};

static const ax_command_spec config_path_verb = {
	.group = "config", .name = "path", .summary = "Print the path of the configuration file in use",
	.flags = AX_CMD_NO_CONFIG, .handler = cmd_config_path,
};

static const ax_command_spec *const config_verbs[] = {
	&config_init_verb,
	&config_show_verb,
	&config_set_verb,
	&config_path_verb,
	NULL,
};

const ax_group_spec ax_group_config = {
	.name = "config",
	.summary = "Create, show and change the configuration",
	.verbs = config_verbs,
};
