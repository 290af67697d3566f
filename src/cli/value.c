/* Value kinds: how each is checked and stored, and the name `__commands` gives it. */
#include "cli/parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/file_common.h"
#include "lib/duration.h"
#include "lib/quantity.h"

static const struct {
	const char *name, *type;
} kinds[] = {
	[AX_VAL_NONE] = { "none", "flag" },
	[AX_VAL_TEXT] = { "text", "string" },
	[AX_VAL_INT] = { "int", "int" },
	[AX_VAL_DURATION] = { "duration", "duration" },
	[AX_VAL_LIFETIME] = { "lifetime", "string" },
	[AX_VAL_CHOICE] = { "choice", "choice" },
	[AX_VAL_KV] = { "kv", "kv" },
	[AX_VAL_SANDBOX_ID] = { "sandbox-id", "string" },
	[AX_VAL_CHECKPOINT_ID] = { "checkpoint-id", "string" },
	[AX_VAL_CHECKPOINT] = { "checkpoint", "string" },
	[AX_VAL_LOCAL_PATH] = { "local-path", "string" },
	[AX_VAL_LOCAL_DIR] = { "local-dir", "string" },
	[AX_VAL_REMOTE_PATH] = { "remote-path", "string" },
	[AX_VAL_COMMAND] = { "command", "string" },
	[AX_VAL_CPU] = { "cpu", "string" },
	[AX_VAL_MEMORY] = { "memory", "string" },
	[AX_VAL_DISK] = { "disk", "string" },
	[AX_VAL_PIDS] = { "pids", "int" },
	[AX_VAL_MODE] = { "mode", "string" },
	[AX_VAL_JSON_OBJECT] = { "json-object", "string" },
	[AX_VAL_ENCODING] = { "encoding", "string" },
	[AX_VAL_PROFILE] = { "profile", "string" },
	[AX_VAL_CONFIG_KEY] = { "config-key", "string" },
};

const char *ax_value_kind_name(ax_value_kind kind)
{
	return kind < sizeof kinds / sizeof kinds[0] && kinds[kind].name ? kinds[kind].name : "text";
}

const char *ax_value_kind_type(ax_value_kind kind)
{
	return kind < sizeof kinds / sizeof kinds[0] && kinds[kind].type ? kinds[kind].type : "string";
}

static int parse_int(const char *text, long long *n)
{
	char *end;

	errno = 0;
	*n = strtoll(text, &end, 10);
	return errno || end == text || *end ? -1 : 0;
}

/* TEXT (a value or a bound) as the number O's bounds compare: an integer, or
 * a duration's seconds. */
static int bound_number(const ax_option_spec *o, const char *text, long long *n)
{
	ax_error ignored;

	if (o->kind == AX_VAL_DURATION)
		return ax_duration_parse(text, n, &ignored);
	return parse_int(text, n);
}

static int check_range(const ax_option_spec *o, long long n, ax_error *err)
{
	long long lo = 0, hi = 0;
	bool has_lo = o->min && bound_number(o, o->min, &lo) == 0;
	bool has_hi = o->max && bound_number(o, o->max, &hi) == 0;

	if (has_lo && has_hi && (n < lo || n > hi))
		return ax_fail(err, AX_CODE_USAGE, "--%s must be from %s to %s", o->name, o->min, o->max);
	if (has_lo && n < lo)
		return ax_fail(err, AX_CODE_USAGE, "--%s must be at least %s", o->name, o->min);
	if (has_hi && n > hi)
		return ax_fail(err, AX_CODE_USAGE, "--%s must be at most %s", o->name, o->max);
	return 0;
}

static void choices_text(const char *const *choices, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	for (; choices && *choices && off < size; choices++)
		off += (size_t)snprintf(buf + off, size - off, "%s%s", off ? ", " : "", *choices);
}

/* The resource limits share one grammar with the engine (quantity.h). */
static int check_limit(const ax_option_spec *o, const char *value, ax_error *err)
{
	static const struct {
		ax_value_kind kind;
		ax_limit_kind limit;
	} limits[] = {
		{ AX_VAL_CPU, AX_LIMIT_CPU },
		{ AX_VAL_MEMORY, AX_LIMIT_MEMORY },
		{ AX_VAL_DISK, AX_LIMIT_DISK },
		{ AX_VAL_PIDS, AX_LIMIT_PIDS },
	};
	const char *why = "too long";
	long long n;

	for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
		if (limits[i].kind == o->kind) {
			if (strlen(value) <= 32 && ax_limit_parse(limits[i].limit, value, &n, &why) == 0)
				return 0;
			return ax_fail(err, AX_CODE_USAGE, "invalid value '%s' for --%s: %s", value, o->name, why);
		}
	return 0;
}

static int check_json_object(const ax_option_spec *o, const char *value, ax_error *err)
{
	json_error_t je;
	json_t *v = json_loads(value, JSON_DECODE_ANY, &je);
	bool object = json_is_object(v);

	json_decref(v);
	if (!v)
		return ax_fail(err, AX_CODE_USAGE, "Invalid JSON for --%s: %s", o->name, je.text);
	if (!object)
		return ax_fail(err, AX_CODE_USAGE, "--%s must be a JSON object", o->name);
	return 0;
}

/* Checks of kinds stored as the text typed. */
static int check_text(const ax_option_spec *o, const char *value, ax_error *err)
{
	long long secs;
	bool none;
	int mode;

	switch (o->kind) {
	case AX_VAL_DURATION:
		if (ax_duration_parse(value, &secs, err) < 0)
			return -1;
		return check_range(o, secs, err);
	case AX_VAL_LIFETIME:
		return ax_duration_parse_nullable(value, &secs, &none, err);
	case AX_VAL_CPU:
	case AX_VAL_MEMORY:
	case AX_VAL_DISK:
		return check_limit(o, value, err);
	case AX_VAL_MODE:
		if (ax_mode_parse(value, &mode) < 0)
			return ax_fail(err, AX_CODE_USAGE,
				       "Invalid value for '--%s': must be an octal permission such as 644, 0755, or 0o600",
				       o->name);
		return 0;
	case AX_VAL_JSON_OBJECT:
		return check_json_object(o, value, err);
	case AX_VAL_ENCODING:
		/* Bytes pass through untouched: only UTF-8 text is what they are. */
		if (strcasecmp(value, "utf-8") == 0 || strcasecmp(value, "utf8") == 0)
			return 0;
		return ax_fail(err, AX_CODE_USAGE,
			       "Invalid value for '--%s': unsupported encoding '%s' (only utf-8)", o->name, value);
	default:
		return 0;
	}
}

json_t *ax_value_parse(const ax_option_spec *o, const char *value, ax_error *err)
{
	char buf[256];
	const char *const *c;
	long long n;
	json_t *s;

	if (o->kind == AX_VAL_INT || o->kind == AX_VAL_PIDS) {
		if (parse_int(value, &n) < 0) {
			ax_fail(err, AX_CODE_USAGE, "invalid value '%s' for --%s: expected an integer", value,
				o->name);
			return NULL;
		}
		if (check_range(o, n, err) < 0 || check_limit(o, value, err) < 0)
			return NULL;
		return json_integer(n);
	}
	if (o->kind == AX_VAL_CHOICE) {
		for (c = o->choices; c && *c; c++)
			if (strcmp(*c, value) == 0)
				return json_string(value);
		choices_text(o->choices, buf, sizeof buf);
		ax_fail(err, AX_CODE_USAGE, "invalid value '%s' for --%s: choose from %s", value, o->name, buf);
		return NULL;
	}
	if (check_text(o, value, err) < 0)
		return NULL;
	s = json_string(value);
	if (!s)
		ax_fail(err, AX_CODE_USAGE, "invalid value for --%s: not valid UTF-8", o->name);
	return s;
}
