/*
 * `allox-cli __complete KIND [ARGS]`: the values completion scripts cannot
 * know statically, one per line as "VALUE<TAB>description":
 *
 *   sandbox-ids [PREFIX]      from the id cache
 *   checkpoint-ids [PREFIX]   from the id cache, plus "latest"
 *   profiles [PREFIX]         $ALLOX_HOME/NAME.toml (config.toml is the default, not a profile)
 *   formats GROUP [VERB...]   the -o values that verb accepts
 *   config-keys [PREFIX]      the keys `config set` accepts
 *   durations [PREFIX]        examples: 30s 5m 30m 1h 2h
 *   line -- WORD... CURRENT   everything for the word being typed (src/cli/complete_line.c)
 *
 * It must answer within a keystroke: it never starts the engine, and it asks
 * the local engine for fresh ids only when its socket already answers and
 * the cached list is older than ALLOX_COMPLETE_TTL seconds (default 15),
 * with a one-second limit. libcurl is initialised only on that path.
 */
#include "cli/hidden.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/checkpoint.h"
#include "lib/idcache.h"
#include "api/lifecycle.h"

#define DEFAULT_TTL 15
#define REFRESH_TIMEOUT_S 1

static bool has_prefix(const char *s, const char *prefix)
{
	return !prefix || strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The cache's name for the configured server: "local" for the embedded engine. */
static char *domain_key(const ax_globals *g, const char *home)
{
	ax_config cfg;
	ax_error err;
	char *path = NULL, *key = NULL;
	const char *d;

	if (ax_config_path(home, g->profile, g->config_path, &path, &err) == 0 &&
	    ax_config_load(&cfg, path, &g->flags, &err) == 0) {
		d = ax_config_string(&cfg, "domain");
		key = strdup(d && *d ? d : "local");
	}
	ax_config_free(&cfg);
	free(path);
	return key;
}

/* Ask the running local engine for KIND's complete list; 0 if the cache changed. */
static int refresh(const char *home, json_t *cache, ax_idkind kind)
{
	ax_lifecycle lc;
	ax_error err;
	json_t *items, *rows, *item;
	size_t i;
	char *sock = ax_local_socket_path(home);

	if (!ax_local_socket_answers(sock)) {
		free(sock);
		return -1;
	}
	memset(&lc, 0, sizeof lc);
	lc.local = true;
	lc.display = sock;
	if (ax_http_init(&lc.http, "http://localhost/v1", sock, REFRESH_TIMEOUT_S, &err) < 0) {
		ax_lc_close(&lc);
		return -1;
	}
	items = ax_lc_list_all(&lc, kind == AX_ID_SANDBOX ? "/sandboxes" : "/snapshots", NULL, &err);
	ax_lc_close(&lc);
	if (!items)
		return -1;
	rows = json_array();
	json_array_foreach(items, i, item) {
		if (kind == AX_ID_SANDBOX)
			json_array_append_new(rows, json_pack("{s:O, s:O?}", "id", json_object_get(item, "id"), "state",
							      json_object_get(json_object_get(item, "status"), "state")));
		else
			json_array_append_new(rows, ax_checkpoint_object(item));
	}
	if (kind == AX_ID_SANDBOX)
		ax_idcache_set_sandboxes(cache, rows, time(NULL));
	else
		ax_idcache_set_checkpoints(cache, rows, NULL, time(NULL));
	json_decref(rows);
	json_decref(items);
	return 0;
}

static long ttl(void)
{
	const char *s = getenv("ALLOX_COMPLETE_TTL");
	char *end;
	long v;

	if (!s || !*s)
		return DEFAULT_TTL;
	v = strtol(s, &end, 10);
	return *end || v < 0 ? DEFAULT_TTL : v;
}

int ax_complete_ids(const ax_globals *g, const char *home, bool checkpoints, const char *prefix, FILE *out)
{
	ax_idkind kind = checkpoints ? AX_ID_CHECKPOINT : AX_ID_SANDBOX;
	char *domain = domain_key(g, home);
	json_t *cache = ax_idcache_load(home, domain);
	ax_error err;

	if (!cache) {
		free(domain);
		return AX_EXIT_FAILURE;
	}
	if (domain && strcmp(domain, "local") == 0 && ax_idcache_stale(cache, kind, time(NULL), ttl()) &&
	    refresh(home, cache, kind) == 0)
		ax_idcache_save(home, cache, &err);
	ax_idcache_print(out, cache, kind, prefix);
	json_decref(cache);
	free(domain);
	return AX_EXIT_OK;
}

int ax_complete_profiles(const char *home, const char *prefix, FILE *out)
{
	DIR *d = opendir(home);
	struct dirent *e;

	if (!d)
		return AX_EXIT_OK;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n <= 5 || strcmp(e->d_name + n - 5, ".toml") != 0 || strcmp(e->d_name, "config.toml") == 0 ||
		    !has_prefix(e->d_name, prefix) || e->d_name[0] == '.')
			continue;
		fprintf(out, "%.*s\tprofile %s\n", (int)(n - 5), e->d_name, e->d_name);
	}
	closedir(d);
	return AX_EXIT_OK;
}

static int complete_formats(const ax_registry *r, int argc, char **argv, FILE *out)
{
	static const ax_format all[] = { AX_FMT_TABLE, AX_FMT_JSON, AX_FMT_YAML, AX_FMT_RAW };
	const ax_group_spec *g = argc < 1 ? NULL : ax_registry_group(r, argv[0]);
	const ax_command_spec *c;
	int words;
	size_t i;

	if (!g)
		return AX_EXIT_USAGE;
	c = ax_group_verb(g, argc - 1, argv + 1, &words);
	if (!c)
		return AX_EXIT_USAGE;
	for (i = 0; i < sizeof all / sizeof all[0]; i++)
		if (c->formats & all[i])
			fprintf(out, "%s\t%s%s\n", ax_format_name(all[i]), "output format",
				c->default_format == all[i] ? " (default)" : "");
	return AX_EXIT_OK;
}

int ax_complete_config_keys(const char *prefix, FILE *out)
{
	const ax_conf_key *k;

	for (k = ax_conf_keys(); k->key; k++)
		if (has_prefix(k->key, prefix))
			fprintf(out, "%s\t%s\n", k->key, k->help);
	return AX_EXIT_OK;
}

int ax_complete_durations(const char *prefix, bool with_none, FILE *out)
{
	static const char *const examples[] = { "30s", "5m", "30m", "1h", "2h" };
	size_t i;

	for (i = 0; i < sizeof examples / sizeof examples[0]; i++)
		if (has_prefix(examples[i], prefix))
			fprintf(out, "%s\tduration (example)\n", examples[i]);
	if (with_none && has_prefix("none", prefix))
		fputs("none\tno expiry\n", out);
	return AX_EXIT_OK;
}

static int complete_main(const ax_registry *r, const ax_globals *g, const char *home, int argc, char **argv, FILE *out, FILE *err)
{
	const char *kind = argc > 0 ? argv[0] : "";
	const char *prefix = argc > 1 ? argv[1] : NULL;
	int rc = AX_EXIT_USAGE;

	if (strcmp(kind, "line") == 0 && argc > 2 && strcmp(argv[1], "--") == 0)
		rc = ax_complete_line(r, g, home, argc - 2, argv + 2, out);
	else if (strcmp(kind, "sandbox-ids") == 0)
		rc = ax_complete_ids(g, home, false, prefix, out);
	else if (strcmp(kind, "checkpoint-ids") == 0)
		rc = ax_complete_ids(g, home, true, prefix, out);
	else if (strcmp(kind, "profiles") == 0)
		rc = ax_complete_profiles(home, prefix, out);
	else if (strcmp(kind, "formats") == 0)
		rc = complete_formats(r, argc - 1, argv + 1, out);
	else if (strcmp(kind, "config-keys") == 0)
		rc = ax_complete_config_keys(prefix, out);
	else if (strcmp(kind, "durations") == 0)
		rc = ax_complete_durations(prefix, false, out);
	if (rc == AX_EXIT_USAGE)
		fprintf(err, "Usage: allox-cli __complete line -- WORD... CURRENT\n"
			     "       allox-cli __complete sandbox-ids|checkpoint-ids|profiles|config-keys|durations [PREFIX]\n"
			     "       allox-cli __complete formats GROUP [VERB...]\n");
	return rc;
}

bool ax_hidden_verb(const char *word)
{
	return strcmp(word, "__commands") == 0 || strcmp(word, "__complete") == 0;
}

int ax_hidden_main(const ax_registry *r, const ax_globals *g, const char *home, int argc, char **argv, FILE *out,
		   FILE *err)
{
	int rc;

	if (strcmp(argv[0], "__complete") == 0)
		rc = complete_main(r, g, home, argc - 1, argv + 1, out, err);
	else {
		json_t *doc = ax_commands_json(r);

		rc = doc && json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 ? AX_EXIT_OK : AX_EXIT_FAILURE;
		fputc('\n', out);
		json_decref(doc);
	}
	if (fflush(out) != 0 || ferror(out))
		rc = AX_EXIT_FAILURE;
	return rc;
}
