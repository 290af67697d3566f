#include "lib/conf.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/duration.h"
#include "lib/fs.h"
#include "lib/quantity.h"
#include "lib/toml.h"

#define DEFAULT_OPERATIONS "[\"run\", \"file.write\", \"file.upload\", \"aio.exec\", \"aio.jupyter\"]"

static const ax_conf_key keys[] = {
	{ "connection.api_key", "api_key", AX_CONF_STRING, NULL, 0, 0,
	  { "ALLOX_API_KEY", "OPEN_SANDBOX_API_KEY" }, "API key sent as OPEN-SANDBOX-API-KEY" },
	{ "connection.domain", "domain", AX_CONF_STRING, NULL, 0, 0,
	  { "ALLOX_DOMAIN", "OPEN_SANDBOX_DOMAIN" },
	  "lifecycle server: unset or \"local\" = the embedded engine; \"unix:/path\"; \"host:port\"; or a URL" },
	{ "connection.protocol", "protocol", AX_CONF_PROTOCOL, "\"http\"", 0, 0,
	  { "ALLOX_PROTOCOL", NULL }, "http or https" },
	{ "connection.request_timeout", "request_timeout", AX_CONF_INT, "30", 1, 86400,
	  { "ALLOX_REQUEST_TIMEOUT", NULL }, "seconds per lifecycle/execd request" },
	{ "connection.use_server_proxy", "use_server_proxy", AX_CONF_BOOL, "false", 0, 0,
	  { NULL, NULL }, "ask the server for proxied endpoints" },
	{ "output.color", "color", AX_CONF_BOOL, "true", 0, 0,
	  { NULL, NULL }, "colour in tables (never when NO_COLOR is set or output is not a terminal)" },
	{ "defaults.image", "default_image", AX_CONF_STRING, "\"ghcr.io/agent-infra/sandbox:latest\"", 0, 0,
	  { NULL, NULL }, "image for sandbox create" },
	{ "defaults.timeout", "default_timeout", AX_CONF_TIMEOUT, "\"30m\"", 0, 0,
	  { NULL, NULL }, "sandbox lifetime; \"none\" = no expiry" },
	{ "defaults.entrypoint", "default_entrypoint", AX_CONF_LIST, "[\"/opt/gem/run.sh\"]", 0, 0,
	  { NULL, NULL }, "argv of the sandbox entrypoint" },
	{ "defaults.aio_port", "aio_port", AX_CONF_INT, "8080", 1, 65535,
	  { NULL, NULL }, "port of the AIO runtime API inside the sandbox" },
	{ "defaults.aio_health_path", "aio_health_path", AX_CONF_STRING, "\"/v1/shell/sessions\"", 0, 0,
	  { NULL, NULL }, "readiness probe path" },
	{ "defaults.ready_timeout", "ready_timeout", AX_CONF_DURATION, "\"30s\"", 0, 0,
	  { NULL, NULL }, "how long create waits for the runtime to answer" },
	{ "defaults.skip_health_check", "skip_health_check", AX_CONF_BOOL, "false", 0, 0,
	  { NULL, NULL }, "true for images without the AIO API" },
	{ "defaults.cpu", "default_cpu", AX_CONF_CPU, "\"1\"", 0, 0,
	  { NULL, NULL }, "CPUs of new sandboxes (resourceLimits.cpu): 1, 0.5 or 500m; \"\" = the server's default" },
	{ "defaults.memory", "default_memory", AX_CONF_SIZE, "\"2Gi\"", 0, 0,
	  { NULL, NULL }, "memory of new sandboxes (resourceLimits.memory): 512Mi, 2Gi; \"\" = the server's default" },
	{ "defaults.pids", "default_pids", AX_CONF_INT, NULL, 16, 4194304,
	  { NULL, NULL }, "process limit of new sandboxes (resourceLimits.pids); unset = the server's default" },
	{ "defaults.disk", "default_disk", AX_CONF_SIZE, NULL, 0, 0,
	  { NULL, NULL }, "writable-layer size of new sandboxes (resourceLimits.ephemeral-storage); unset = none" },
	{ "checkpoint.enabled", "checkpoint_enabled", AX_CONF_BOOL, "false", 0, 0,
	  { NULL, NULL }, "automatic checkpoints" },
	{ "checkpoint.on_success", "checkpoint_on_success", AX_CONF_BOOL, "false", 0, 0,
	  { NULL, NULL }, "checkpoint after each successful listed operation" },
	{ "checkpoint.operations", "checkpoint_operations", AX_CONF_LIST, DEFAULT_OPERATIONS, 0, 0,
	  { NULL, NULL }, "operations that trigger an automatic checkpoint" },
	{ "checkpoint.interval", "checkpoint_interval", AX_CONF_DURATION, "\"5m\"", 0, 0,
	  { NULL, NULL }, "default interval of checkpoint watch" },
	{ "checkpoint.strict", "checkpoint_strict", AX_CONF_BOOL, "false", 0, 0,
	  { NULL, NULL }, "a failed automatic checkpoint fails the command" },
	{ "checkpoint.create_timeout", "checkpoint_create_timeout", AX_CONF_INT, "900", 1, 86400,
	  { NULL, NULL }, "seconds to wait for a checkpoint to become ready" },
	{ NULL, NULL, AX_CONF_STRING, NULL, 0, 0, { NULL, NULL }, NULL },
};

const ax_conf_key *ax_conf_keys(void)
{
	return keys;
}

const ax_conf_key *ax_conf_find(const char *key)
{
	const ax_conf_key *k;

	for (k = keys; k->key; k++)
		if (strcmp(k->key, key) == 0)
			return k;
	return NULL;
}

static json_t *default_value(const ax_conf_key *k)
{
	json_t *doc = NULL, *v;
	char buf[256];

	if (!k->def)
		return json_null();
	snprintf(buf, sizeof buf, "v = %s\n", k->def);
	if (toml_parse(buf, strlen(buf), &doc, NULL) < 0)
		return json_null();
	v = json_incref(json_object_get(doc, "v"));
	json_decref(doc);
	return v ? v : json_null();
}

static const char *type_name(ax_conf_type t)
{
	switch (t) {
	case AX_CONF_PROTOCOL: return "http or https";
	case AX_CONF_INT: return "an integer";
	case AX_CONF_BOOL: return "a boolean (true or false)";
	case AX_CONF_DURATION: return "a duration such as 90s, 10m or 1h30m";
	case AX_CONF_TIMEOUT: return "a duration such as 30m, or \"none\"";
	case AX_CONF_LIST: return "a list of strings";
	case AX_CONF_CPU: return "a number of CPUs such as 1, 0.5 or 500m";
	case AX_CONF_SIZE: return "a size such as 512Mi, 2Gi or 100M";
	case AX_CONF_STRING: break;
	}
	return "a string";
}

/* CPU and SIZE keys: a string of quantity.h's grammar, or a TOML number
 * (normalised to that string); "" means "send none". */
static json_t *check_limit(const ax_conf_key *k, json_t *v, char *reason, size_t size)
{
	ax_limit_kind kind = k->type == AX_CONF_CPU ? AX_LIMIT_CPU
			     : strcmp(k->key, "defaults.disk") == 0 ? AX_LIMIT_DISK : AX_LIMIT_MEMORY;
	const char *why = "";
	char text[64];
	long long n;

	if (json_is_string(v)) {
		if (!*json_string_value(v))
			return json_incref(v);
		snprintf(text, sizeof text, "%.63s", json_string_value(v));
	} else if (json_is_integer(v)) {
		snprintf(text, sizeof text, "%lld", (long long)json_integer_value(v));
	} else if (json_is_real(v) && kind == AX_LIMIT_CPU && json_real_value(v) > 0 && json_real_value(v) < 1e6) {
		/* cpu = 0.5: to millicores, which the grammar reads exactly. */
		snprintf(text, sizeof text, "%lldm", (long long)(json_real_value(v) * 1000 + 0.5));
	} else {
		snprintf(reason, size, "expected %s", type_name(k->type));
		return NULL;
	}
	if (strlen(text) > 32 || ax_limit_parse(kind, text, &n, &why) < 0) {
		snprintf(reason, size, "%s", strlen(text) > 32 ? "too long" : why);
		return NULL;
	}
	return json_is_string(v) ? json_incref(v) : json_string(text);
}

/* Check a typed value (from the file, or converted from text); returns a new
 * reference to the normalised value, or NULL with REASON filled. */
static json_t *check_value(const ax_conf_key *k, json_t *v, char *reason, size_t size)
{
	ax_error e;
	long long secs;
	bool none;
	size_t i;
	json_t *item;

	/* A key without a default can be set to "" to leave it unset again. */
	if (!k->def && json_is_string(v) && !*json_string_value(v))
		return json_incref(v);
	switch (k->type) {
	case AX_CONF_CPU:
	case AX_CONF_SIZE:
		return check_limit(k, v, reason, size);
	case AX_CONF_STRING:
		if (json_is_string(v))
			return json_incref(v);
		break;
	case AX_CONF_PROTOCOL:
		if (json_is_string(v) && (strcmp(json_string_value(v), "http") == 0 ||
					  strcmp(json_string_value(v), "https") == 0))
			return json_incref(v);
		break;
	case AX_CONF_INT:
		if (json_is_integer(v)) {
			if (json_integer_value(v) < k->min || json_integer_value(v) > k->max) {
				snprintf(reason, size, "expected an integer from %lld to %lld, got %lld",
					 k->min, k->max, (long long)json_integer_value(v));
				return NULL;
			}
			return json_incref(v);
		}
		break;
	case AX_CONF_BOOL:
		if (json_is_boolean(v))
			return json_incref(v);
		break;
	case AX_CONF_DURATION:
	case AX_CONF_TIMEOUT:
		if (json_is_integer(v) && json_integer_value(v) >= 0)
			return json_incref(v);
		if (!json_is_string(v))
			break;
		if (k->type == AX_CONF_TIMEOUT
			    ? ax_duration_parse_nullable(json_string_value(v), &secs, &none, &e) == 0
			    : ax_duration_parse(json_string_value(v), &secs, &e) == 0)
			return json_incref(v);
		snprintf(reason, size, "%.400s", e.message);
		return NULL;
	case AX_CONF_LIST:
		/* A bare string is a one-element list, as the original accepted. */
		if (json_is_string(v))
			return json_pack("[O]", v);
		if (!json_is_array(v))
			break;
		json_array_foreach(v, i, item)
			if (!json_is_string(item)) {
				snprintf(reason, size, "expected a list of strings, item %zu is not a string", i + 1);
				return NULL;
			}
		return json_incref(v);
	}
	snprintf(reason, size, "expected %s", type_name(k->type));
	return NULL;
}

static int parse_bool_word(const char *s, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };
	size_t i;

	for (i = 0; i < 4; i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -1;
}

static json_t *list_from_text(const char *text, ax_error *err)
{
	json_t *list = json_array();
	const char *p = text;

	while (isspace((unsigned char)*p))
		p++;
	if (*p == '[') {
		size_t n = strlen(p) + 8;
		char *doc = malloc(n);
		json_t *parsed = NULL;
		ax_error perr;

		json_decref(list);
		if (!doc)
			return NULL;
		snprintf(doc, n, "v = %s\n", p);
		if (toml_parse(doc, strlen(doc), &parsed, &perr) < 0) {
			free(doc);
			ax_fail(err, AX_CODE_INVALID_VALUE, "invalid TOML array '%s'", text);
			return NULL;
		}
		free(doc);
		list = json_incref(json_object_get(parsed, "v"));
		json_decref(parsed);
		return list;
	}
	while (*p) {
		size_t n = strcspn(p, ",");
		const char *start = p, *end = p + n;

		while (start < end && isspace((unsigned char)*start))
			start++;
		while (end > start && isspace((unsigned char)end[-1]))
			end--;
		if (end > start)
			json_array_append_new(list, json_stringn(start, (size_t)(end - start)));
		p += n;
		if (*p == ',')
			p++;
	}
	return list;
}

json_t *ax_conf_value_from_text(const ax_conf_key *k, const char *text, ax_error *err)
{
	json_t *raw = NULL, *v;
	char reason[512];
	bool b;

	/* "" unsets a key without a default (check_value takes it from files too). */
	if (!k->def && !*text)
		return json_string("");
	switch (k->type) {
	case AX_CONF_BOOL:
		if (parse_bool_word(text, &b) < 0) {
			ax_fail(err, AX_CODE_INVALID_VALUE,
				"Invalid value '%s' for %s: expected true or false", text, k->key);
			return NULL;
		}
		raw = json_boolean(b);
		break;
	case AX_CONF_INT: {
		char *end;
		long long n;

		errno = 0;
		n = strtoll(text, &end, 10);
		if (errno || end == text || *end) {
			ax_fail(err, AX_CODE_INVALID_VALUE,
				"Invalid value '%s' for %s: expected an integer", text, k->key);
			return NULL;
		}
		raw = json_integer(n);
		break;
	}
	case AX_CONF_LIST:
		raw = list_from_text(text, err);
		if (!raw)
			return NULL;
		break;
	default:
		raw = json_string(text);
		break;
	}
	if (!raw) {
		ax_fail(err, AX_CODE_INVALID_VALUE, "Invalid value for %s (not valid UTF-8?)", k->key);
		return NULL;
	}
	v = check_value(k, raw, reason, sizeof reason);
	json_decref(raw);
	if (!v)
		ax_fail(err, AX_CODE_INVALID_VALUE, "Invalid value '%s' for %s: %s", text, k->key, reason);
	return v;
}

static bool valid_profile(const char *p)
{
	if (!*p)
		return false;
	for (; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_')
			return false;
	return true;
}

int ax_config_path(const char *home, const char *profile, const char *config_path,
		   char **out, ax_error *err)
{
	char name[300];

	if (config_path && *config_path) {
		*out = strdup(config_path);
	} else if (profile) {
		if (!valid_profile(profile) || strlen(profile) > 200)
			return ax_fail(err, AX_CODE_USAGE,
				       "Invalid profile name '%s': use letters, digits, '-' and '_'", profile);
		snprintf(name, sizeof name, "%s.toml", profile);
		*out = ax_path_join(home, name);
	} else {
		*out = ax_path_join(home, "config.toml");
	}
	if (!*out)
		return ax_fail(err, AX_CODE_IO, "out of memory");
	return 0;
}

static json_t *file_lookup(json_t *file, const char *key)
{
	const char *dot = strchr(key, '.');
	char section[64];

	if (!dot || (size_t)(dot - key) >= sizeof section)
		return NULL;
	snprintf(section, sizeof section, "%.*s", (int)(dot - key), key);
	return json_object_get(json_object_get(file, section), dot + 1);
}

static const char *flag_text(const ax_config_flags *f, const char *name)
{
	if (!f)
		return NULL;
	if (strcmp(name, "api_key") == 0)
		return f->api_key;
	if (strcmp(name, "domain") == 0)
		return f->domain;
	if (strcmp(name, "protocol") == 0)
		return f->protocol;
	if (strcmp(name, "request_timeout") == 0)
		return f->request_timeout;
	if (strcmp(name, "use_server_proxy") == 0 && f->use_server_proxy >= 0)
		return f->use_server_proxy ? "true" : "false";
	if (strcmp(name, "color") == 0 && f->no_color)
		return "false";
	return NULL;
}

static int resolve_key(ax_config *cfg, const ax_conf_key *k, const ax_config_flags *flags, ax_error *err)
{
	const char *text = flag_text(flags, k->name);
	json_t *v = NULL;
	char source[80];
	size_t i;

	if (text) {
		v = ax_conf_value_from_text(k, text, err);
		if (!v)
			return -1;
		snprintf(source, sizeof source, "flag");
	}
	for (i = 0; !v && i < 2 && k->env[i]; i++) {
		const char *e = getenv(k->env[i]);

		if (!e || !*e)
			continue;
		v = ax_conf_value_from_text(k, e, err);
		if (!v) {
			/* Name the variable, not the key, so users know where to look. */
			snprintf(err->message, sizeof err->message, "Invalid value '%s' in %s: expected %s",
				 e, k->env[i], type_name(k->type));
			return -1;
		}
		snprintf(source, sizeof source, "env:%s", k->env[i]);
	}
	if (!v) {
		json_t *fv = file_lookup(cfg->file, k->key);

		if (fv) {
			char reason[512];

			v = check_value(k, fv, reason, sizeof reason);
			if (!v)
				return ax_fail(err, AX_CODE_CONFIG, "%s: %s: %s", cfg->path, k->key, reason);
			snprintf(source, sizeof source, "file");
		}
	}
	if (!v) {
		v = default_value(k);
		snprintf(source, sizeof source, "default");
	}
	json_object_set_new(cfg->resolved, k->name, v);
	json_object_set_new(cfg->sources, k->name, json_string(source));
	return 0;
}

int ax_config_load(ax_config *cfg, const char *path, const ax_config_flags *flags, ax_error *err)
{
	const ax_conf_key *k;
	char *text = NULL;
	size_t len = 0;
	int rc;

	memset(cfg, 0, sizeof *cfg);
	cfg->path = strdup(path);
	cfg->resolved = json_object();
	cfg->sources = json_object();
	if (!cfg->path || !cfg->resolved || !cfg->sources)
		return ax_fail(err, AX_CODE_IO, "out of memory");
	rc = ax_read_file(path, &text, &len, err);
	if (rc < 0)
		return -1;
	cfg->file_exists = rc == 0;
	if (cfg->file_exists) {
		ax_error perr;

		if (toml_parse(text, len, &cfg->file, &perr) < 0) {
			free(text);
			return ax_fail(err, AX_CODE_CONFIG, "%s:%s", path, perr.message);
		}
		free(text);
	} else {
		cfg->file = json_object();
	}
	for (k = keys; k->key; k++)
		if (resolve_key(cfg, k, flags, err) < 0)
			return -1;
	return 0;
}

void ax_config_free(ax_config *cfg)
{
	if (!cfg)
		return;
	free(cfg->path);
	json_decref(cfg->file);
	json_decref(cfg->resolved);
	json_decref(cfg->sources);
	memset(cfg, 0, sizeof *cfg);
}

const json_t *ax_config_value(const ax_config *cfg, const char *name)
{
	return json_object_get(cfg->resolved, name);
}

const char *ax_config_string(const ax_config *cfg, const char *name)
{
	return json_string_value(ax_config_value(cfg, name));
}

long long ax_config_int(const ax_config *cfg, const char *name)
{
	return json_integer_value(ax_config_value(cfg, name));
}

bool ax_config_bool(const ax_config *cfg, const char *name)
{
	return json_is_true(ax_config_value(cfg, name));
}

char *ax_config_template(void)
{
	static const char *const sections[] = { "connection", "output", "defaults", "checkpoint" };
	size_t size = 0, i;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &size);
	const ax_conf_key *k;

	if (!f)
		return NULL;
	fputs("# allox-cli configuration\n"
	      "#\n"
	      "# Precedence: command-line flags > ALLOX_* environment variables >\n"
	      "# OPEN_SANDBOX_API_KEY / OPEN_SANDBOX_DOMAIN > this file > built-in defaults.\n"
	      "# Every key below is commented out and shows its default.\n"
	      "# Change one with: allox-cli config set SECTION.KEY VALUE\n", f);
	for (i = 0; i < sizeof sections / sizeof sections[0]; i++) {
		size_t slen = strlen(sections[i]);

		fprintf(f, "\n[%s]\n", sections[i]);
		for (k = keys; k->key; k++) {
			if (strncmp(k->key, sections[i], slen) != 0 || k->key[slen] != '.')
				continue;
			fprintf(f, "# %s\n", k->help);
			if (k->def)
				fprintf(f, "# %s = %s\n", k->key + slen + 1, k->def);
			else if (strcmp(k->name, "domain") == 0)
				fprintf(f, "# %s = \"local\"\n", k->key + slen + 1);
			else
				fprintf(f, "# %s = \"\"\n", k->key + slen + 1);
		}
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *ax_mask_secret(const char *secret)
{
	size_t n = strlen(secret);
	char *s = malloc(n > 4 ? 9 : 5);

	if (!s)
		return NULL;
	if (n > 4)
		snprintf(s, 9, "****%s", secret + n - 4);
	else
		snprintf(s, 5, "****");
	return s;
}
