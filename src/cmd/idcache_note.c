/* Keep the completion id cache in step with what commands see. */
#include "hidden.h"

#include <string.h>
#include <time.h>

#include "idcache.h"

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static bool is(const ax_command_spec *c, const char *group, const char *name)
{
	return strcmp(c->group, group) == 0 && strcmp(c->name, name) == 0;
}

/* Apply CMD's result to CACHE; false when the command says nothing about ids. */
static bool apply(json_t *cache, const ax_command_spec *c, const ax_args *args, const json_t *data)
{
	time_t now = time(NULL);

	if (is(c, "sandbox", "list"))
		ax_idcache_set_sandboxes(cache, data, now);
	else if (is(c, "sandbox", "create"))
		ax_idcache_put_sandbox(cache, str(data, "id"), "Running");
	else if (is(c, "sandbox", "get"))
		ax_idcache_put_sandbox(cache, str(data, "id"), str(data, "state"));
	else if (is(c, "sandbox", "pause") || is(c, "sandbox", "resume"))
		ax_idcache_put_sandbox(cache, str(data, "id"), str(data, "status"));
	else if (is(c, "sandbox", "kill"))
		ax_idcache_remove_sandbox(cache, str(data, "id"));
	else if (is(c, "checkpoint", "create"))
		ax_idcache_put_checkpoint(cache, str(data, "id"), str(data, "name"), str(data, "sandbox_id"));
	else if (is(c, "checkpoint", "delete"))
		ax_idcache_remove_checkpoint(cache, str(data, "checkpoint_id"));
	else if (is(c, "checkpoint", "restore"))
		ax_idcache_put_sandbox(cache, str(data, "id"), "Running");
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

void ax_idcache_note(const ax_ctx *ctx, const ax_args *args, const ax_result *res)
{
	const char *domain;
	json_t *cache, *before;
	ax_error err;

	if (!ctx || !ctx->home || !ctx->config || !args || !args->cmd || !res || res->kind != AX_RESULT_DATA ||
	    !touches_ids(args->cmd))
		return;
	domain = ax_config_string(ctx->config, "domain");
	cache = ax_idcache_load(ctx->home, domain && *domain ? domain : "local");
	before = cache ? json_deep_copy(cache) : NULL;
	/* Rewriting an unchanged cache (a `sandbox get`, `run`'s lookups) would
	 * cost every command a rename and ext4's flush of the file it replaces. */
	if (cache && apply(cache, args->cmd, args, res->data) && !json_equal(before, cache))
		ax_idcache_save(ctx->home, cache, &err);
	json_decref(before);
	json_decref(cache);
}
