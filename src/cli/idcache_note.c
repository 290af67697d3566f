/* Keep the completion id cache in step with what commands see. */
#include "cli/hidden.h"

#include <string.h>
#include <time.h>

#include "lib/idcache.h"

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static bool is(const ax_command_spec *c, const char *group, const char *name)
{
	return strcmp(c->group, group) == 0 && strcmp(c->name, name) == 0;
}

/* CMD's result as one journal edit (see idcache.h), or NULL when it is a
 * listing or says nothing about ids. */
static json_t *edit_of(const ax_command_spec *c, const json_t *data)
{
	if (is(c, "sandbox", "create") || is(c, "checkpoint", "restore"))
		return json_pack("{s:s, s:s?, s:s}", "op", "put_sandbox", "id", str(data, "id"), "state", "Running");
	if (is(c, "sandbox", "get"))
		return json_pack("{s:s, s:s?, s:s?}", "op", "put_sandbox", "id", str(data, "id"), "state", str(data, "state"));
	if (is(c, "sandbox", "pause") || is(c, "sandbox", "resume"))
		return json_pack("{s:s, s:s?, s:s?}", "op", "put_sandbox", "id", str(data, "id"), "state", str(data, "status"));
	if (is(c, "sandbox", "kill"))
		return json_pack("{s:s, s:s?}", "op", "remove_sandbox", "id", str(data, "id"));
	if (is(c, "checkpoint", "create"))
		return json_pack("{s:s, s:s?, s:s?, s:s?}", "op", "put_checkpoint", "id", str(data, "id"), "name",
				 str(data, "name"), "sandbox_id", str(data, "sandbox_id"));
	if (is(c, "checkpoint", "delete"))
		return json_pack("{s:s, s:s?}", "op", "remove_checkpoint", "id", str(data, "checkpoint_id"));
	return NULL;
}

/* Apply a listing's result to CACHE; false when the command is no listing. */
static bool apply_listing(json_t *cache, const ax_command_spec *c, const ax_args *args, const json_t *data)
{
	time_t now = time(NULL);

	if (is(c, "sandbox", "list"))
		ax_idcache_set_sandboxes(cache, data, now);
	else if (is(c, "checkpoint", "list")) {
		/* One sandbox's list replaces only its own entries; --all replaces all. */
		const char *sandbox = ax_arg_flag(args, "all") ? NULL : ax_arg_string(args, "SANDBOX_ID");

		if (!ax_arg_flag(args, "all") && !sandbox)
			sandbox = str(json_array_get(data, 0), "sandbox_id");
		if (!ax_arg_flag(args, "all") && !sandbox)
			return false;
		ax_idcache_set_checkpoints(cache, data, sandbox, now);
	} else
		return false;
	return true;
}

static bool touches_ids(const ax_command_spec *c)
{
	return strcmp(c->group, "sandbox") == 0 || strcmp(c->group, "checkpoint") == 0;
}

/* Whether EDIT may leave the cache as it was (a `sandbox get`, a pause of a
 * paused sandbox): such edits are checked against the cache first, so the
 * journal does not grow with every lookup. Creates and deletes always
 * change it and are appended without reading it. */
static bool maybe_unchanged(const ax_command_spec *c)
{
	return is(c, "sandbox", "get") || is(c, "sandbox", "pause") || is(c, "sandbox", "resume");
}

void ax_idcache_note(const ax_ctx *ctx, const ax_args *args, const ax_result *res)
{
	const char *domain;
	json_t *cache = NULL, *before = NULL, *edit;
	ax_error err;

	if (!ctx || !ctx->home || !ctx->config || !args || !args->cmd || !res || res->kind != AX_RESULT_DATA ||
	    !touches_ids(args->cmd))
		return;
	domain = ax_config_string(ctx->config, "domain");
	domain = domain && *domain ? domain : "local";
	edit = edit_of(args->cmd, res->data);
	if (edit && json_is_string(json_object_get(edit, "id"))) {
		if (maybe_unchanged(args->cmd)) {
			cache = ax_idcache_load(ctx->home, domain);
			before = cache ? json_deep_copy(cache) : NULL;
		}
		if (!cache || (ax_idcache_apply(cache, edit) && !json_equal(before, cache)))
			ax_idcache_append(ctx->home, domain, edit, &err);
	} else if (!edit) {
		cache = ax_idcache_load(ctx->home, domain);
		before = cache ? json_deep_copy(cache) : NULL;
		/* A listing rewrites the file (and empties the journal) only when it
		 * changed something. */
		if (cache && apply_listing(cache, args->cmd, args, res->data) && !json_equal(before, cache))
			ax_idcache_save(ctx->home, cache, &err);
	}
	json_decref(edit);
	json_decref(before);
	json_decref(cache);
}
