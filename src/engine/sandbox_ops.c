/* The operations on sandboxes after their create: list, get, delete,
 * pause and resume, renew, metadata. */
#include "engine/sandbox.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/wire_error.h"
#include "lib/timeutil.h"

static bool state_matches(const json_t *rec, const json_t *states)
{
	size_t i;
	json_t *s;

	if (!states)
		return true;
	json_array_foreach(states, i, s)
		if (strcasecmp(json_string_value(s), ax_record_state(rec) ?: "") == 0)
			return true;
	return false;
}

/* metadata=k%3Dv%26k2%3Dv2 arrives decoded as "k=v&k2=v2": every pair must match. */
static int metadata_matches(const json_t *rec, const char *filter, bool *match)
{
	char *copy = strdup(filter), *save = NULL, *pair;
	const json_t *meta = json_object_get(rec, "metadata");

	*match = true;
	if (!copy)
		return -1;
	for (pair = strtok_r(copy, "&", &save); pair; pair = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(pair, '=');
		const char *have;

		if (!eq || eq == pair) {
			free(copy);
			return -1;
		}
		*eq = '\0';
		have = json_string_value(json_object_get(meta, pair));
		if (!have || strcmp(have, eq + 1) != 0)
			*match = false;
	}
	free(copy);
	return 0;
}

static json_t *list_view(void *unused, const json_t *rec)
{
	(void)unused;
	return ax_record_view(rec, false);
}

json_t *ax_sandbox_list(ax_engine *e, const json_t *states, const char *metadata, const ax_page *page, ax_error *err)
{
	json_t **sel, *rec, *out, *item;
	const char *id;
	size_t n = 0, i;

	pthread_mutex_lock(&e->lock);
	sel = ax_select_begin(e->sandboxes, err);
	if (!sel) {
		pthread_mutex_unlock(&e->lock);
		return NULL;
	}
	json_object_foreach(e->sandboxes, id, rec) {
		bool ok = true;

		if (metadata && metadata_matches(rec, metadata, &ok) < 0) {
			pthread_mutex_unlock(&e->lock);
			free(sel);
			ax_wire_fail(err, "SANDBOX::INVALID_METADATA_FORMAT",
				     "metadata filter must look like key=value&key2=value2");
			return NULL;
		}
		if (ok && state_matches(rec, states))
			sel[n++] = rec;
	}
	out = ax_page_json(sel, n, page, list_view, NULL);
	pthread_mutex_unlock(&e->lock);
	free(sel);
	json_array_foreach(json_object_get(out, "items"), i, item)
		ax_add_entrypoint_status(e, item);
	return out;
}

json_t *ax_sandbox_get(ax_engine *e, const char *id, ax_error *err)
{
	json_t *rec, *v = NULL;

	pthread_mutex_lock(&e->lock);
	rec = ax_sandbox_find(e, id, err);
	if (rec)
		v = ax_record_view(rec, false);
	pthread_mutex_unlock(&e->lock);
	/* The sandbox's own files are read without the lock. */
	if (v)
		ax_add_entrypoint_status(e, v);
	return v;
}

int ax_sandbox_delete(ax_engine *e, const char *id, ax_error *err)
{
	json_t *rec;

	pthread_mutex_lock(&e->lock);
	if (!ax_sandbox_find(e, id, err)) {
		pthread_mutex_unlock(&e->lock);
		return -1;
	}
	/* Deleting a sandbox while it starts: once started, it is known
	 * (runtime) and goes with the rest. */
	rec = ax_sandbox_settled(e, id);
	if (rec) {
		ax_sandbox_destroy(e, id, rec);
		ax_engine_log(e, "deleted %s", id);
	}
	pthread_mutex_unlock(&e->lock);
	return 0;
}

/* Lock held. */
static int pause_resume(ax_engine *e, const char *id, json_t *rec, bool pause, ax_error *err)
{
	const char *want = pause ? "Running" : "Paused";
	ax_rt_handle h;
	ax_error why;

	if (strcmp(ax_record_state(rec) ?: "", want) != 0)
		return ax_wire_fail(err, pause ? "SANDBOX::NOT_RUNNING" : "SANDBOX::NOT_PAUSED", "sandbox %s is %s, not %s",
				    id, ax_record_state(rec) ?: "unknown", want);
	ax_record_handle(rec, &h);
	/* A capture holds the sandbox frozen and thaws it when done, if it is
	 * still meant to run; meanwhile both only change the state. */
	if (!ax_sandbox_capturing(e, id) && (pause ? ax_rt_freeze(&h, id, &why) : ax_rt_thaw(&h, id, &why)) < 0)
		return ax_wire_fail(err, "SANDBOX::RUNTIME_ERROR", "cannot %s sandbox: %s", pause ? "pause" : "resume",
				    why.message);
	ax_record_set_status(rec, e, pause ? "Paused" : "Running", pause ? "SANDBOX_PAUSED" : "SANDBOX_RUNNING", NULL);
	ax_record_save(e, rec);
	return 0;
}

int ax_sandbox_pause(ax_engine *e, const char *id, bool pause, ax_error *err)
{
	json_t *rec;
	int rc = -1;

	pthread_mutex_lock(&e->lock);
	rec = ax_sandbox_find(e, id, err);
	if (rec)
		rc = pause_resume(e, id, rec, pause, err);
	pthread_mutex_unlock(&e->lock);
	return rc;
}

/* Lock held. */
static json_t *renew(ax_engine *e, const char *id, json_t *rec, const json_t *body, ax_error *err)
{
	const char *when = json_string_value(json_object_get(body, "expiresAt"));
	const char *current = json_string_value(json_object_get(rec, "expiresAt"));
	char canon[32];
	time_t t, cur;

	if (!when || json_object_size(body) != 1 || ax_time_parse_rfc3339(when, &t) < 0) {
		ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER", "body must be {\"expiresAt\": \"<RFC 3339 time>\"}");
		return NULL;
	}
	if (t <= ax_engine_now(e)) {
		ax_wire_fail(err, "SANDBOX::INVALID_EXPIRATION", "expiresAt %s is not in the future", when);
		return NULL;
	}
	if (current && ax_time_parse_rfc3339(current, &cur) == 0 && t <= cur) {
		ax_wire_fail(err, "SANDBOX::INVALID_EXPIRATION", "expiresAt %s is not after the current expiry %s", when,
			     current);
		return NULL;
	}
	ax_time_rfc3339(t, canon);
	json_object_set_new(rec, "expiresAt", json_string(canon));
	ax_record_save(e, rec);
	ax_engine_log(e, "renewed %s until %s", id, canon);
	return json_pack("{s:s}", "expiresAt", canon);
}

json_t *ax_sandbox_renew(ax_engine *e, const char *id, const json_t *body, ax_error *err)
{
	json_t *rec, *out = NULL;

	pthread_mutex_lock(&e->lock);
	rec = ax_sandbox_find(e, id, err);
	if (rec)
		out = renew(e, id, rec, body, err);
	pthread_mutex_unlock(&e->lock);
	return out;
}

/* Lock held. */
static json_t *patch_metadata(ax_engine *e, json_t *rec, const json_t *patch, ax_error *err)
{
	json_t *meta = json_object_get(rec, "metadata"), *v;
	const char *k;

	json_object_foreach((json_t *)patch, k, v)
		if (!json_is_string(v) && !json_is_null(v)) {
			ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER", "metadata.%s must be a string or null", k);
			return NULL;
		}
	if (!meta) {
		meta = json_object();
		json_object_set_new(rec, "metadata", meta);
	}
	/* RFC 7396 merge patch: null deletes, a string sets. */
	json_object_foreach((json_t *)patch, k, v) {
		if (json_is_null(v))
			json_object_del(meta, k);
		else
			json_object_set(meta, k, v);
	}
	ax_record_save(e, rec);
	return ax_record_view(rec, false);
}

json_t *ax_sandbox_patch_metadata(ax_engine *e, const char *id, const json_t *patch, ax_error *err)
{
	json_t *rec, *v = NULL;

	pthread_mutex_lock(&e->lock);
	rec = ax_sandbox_find(e, id, err);
	if (rec)
		v = patch_metadata(e, rec, patch, err);
	pthread_mutex_unlock(&e->lock);
	if (v)
		ax_add_entrypoint_status(e, v);
	return v;
}
