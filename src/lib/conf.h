/*
 * Configuration: one table of typed keys, resolved from (strongest first)
 * command-line flags, ALLOX_* variables, OPEN_SANDBOX_* variables, the file
 * ($ALLOX_HOME/config.toml, $ALLOX_HOME/<profile>.toml or --config PATH) and
 * built-in defaults. Every resolved value remembers where it came from.
 */
#ifndef ALLOX_CONF_H
#define ALLOX_CONF_H

#include <stdbool.h>
#include <jansson.h>

#include "lib/ax_error.h"

typedef enum ax_conf_type {
	AX_CONF_STRING,
	AX_CONF_PROTOCOL,   /* "http" or "https" */
	AX_CONF_INT,        /* within [min, max] */
	AX_CONF_BOOL,
	AX_CONF_DURATION,   /* "90s", "10m", ... or integer seconds */
	AX_CONF_TIMEOUT,    /* a duration or "none" (no expiry) */
	AX_CONF_LIST,       /* list of strings */
	AX_CONF_CPU,        /* CPUs: "1", "0.5", "500m" (quantity.h); "" = not sent */
	AX_CONF_SIZE,       /* bytes: "512Mi", "2Gi", "100M" (quantity.h); "" = not sent */
} ax_conf_type;

typedef struct ax_conf_key {
	const char *key;        /* "connection.domain" */
	const char *name;       /* name in `config show`: "domain" */
	ax_conf_type type;
	const char *def;        /* default as a TOML value; NULL: unset */
	long long min, max;     /* AX_CONF_INT bounds; an INT without a default also takes "" (unset) */
	const char *env[2];     /* environment variables, strongest first */
	const char *help;       /* one line for the template */
} ax_conf_key;

/* The key table, terminated by a row whose key is NULL. */
const ax_conf_key *ax_conf_keys(void);
const ax_conf_key *ax_conf_find(const char *key);

typedef struct ax_config_flags {
	const char *api_key;
	const char *domain;
	const char *protocol;
	const char *request_timeout;
	int use_server_proxy;   /* -1: not given */
	bool no_color;
} ax_config_flags;

typedef struct ax_config {
	char *path;          /* the effective file */
	bool file_exists;
	json_t *file;        /* the file as parsed ({} when missing) */
	json_t *resolved;    /* name -> value (null when unset), table order */
	json_t *sources;     /* name -> "flag", "env:VAR", "file" or "default" */
} ax_config;

/* Resolve the effective file path: CONFIG_PATH if given, else HOME/PROFILE.toml,
 * else HOME/config.toml. PROFILE must be [A-Za-z0-9_-]+ (usage error otherwise). */
int ax_config_path(const char *home, const char *profile, const char *config_path,
		   char **out, ax_error *err);

/* Load PATH and resolve every key. A syntax error is "PATH:LINE:COL: reason",
 * a wrongly typed value "PATH: KEY: reason"; both exit 1. Bad flag or
 * environment values are usage errors (exit 2). */
int ax_config_load(ax_config *cfg, const char *path, const ax_config_flags *flags, ax_error *err);
void ax_config_free(ax_config *cfg);

/* Typed access by resolved name; NULL/default when unset. */
const char *ax_config_string(const ax_config *cfg, const char *name);
long long ax_config_int(const ax_config *cfg, const char *name);
bool ax_config_bool(const ax_config *cfg, const char *name);
const json_t *ax_config_value(const ax_config *cfg, const char *name);

/* Turn user text (config set, env, flags) into a typed value for KEY.
 * Booleans: true/false/yes/no/on/off/1/0; lists: "a,b" or a TOML array.
 * Returns a new reference or NULL with a usage error. */
json_t *ax_conf_value_from_text(const ax_conf_key *k, const char *text, ax_error *err);

/* The commented template `config init` writes. */
char *ax_config_template(void);

/* "****abcd": only the last four characters of a secret. */
char *ax_mask_secret(const char *secret);

#endif
