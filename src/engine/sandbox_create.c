/* Creating a sandbox: check the request, reserve the sandbox, start it. */
#include "engine/sandbox.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "engine/egress/egress.h"
#include "engine/egress/egress_policy.h"
#include "engine/wire_error.h"
#include "engine/volume.h"
#include "lib/fs.h"
#include "lib/timeutil.h"

#define MIN_TIMEOUT 60

static bool string_map(const json_t *v)
{
	const char *k;
	json_t *x;

	if (!json_is_object(v))
		return false;
	json_object_foreach((json_t *)v, k, x)
		if (!json_is_string(x))
			return false;
	return true;
}

static const char *image_problem(const char *uri)
{
	struct stat st;

	if (strcmp(uri, "host") == 0)
		return NULL;
	if (strncmp(uri, "rootfs:", 7) == 0) {
		if (uri[7] != '/')
			return "rootfs images need an absolute path (rootfs:/abs/path)";
		if (stat(uri + 7, &st) < 0 || !S_ISDIR(st.st_mode))
			return "rootfs path is not a directory";
		return NULL;
	}
	return "unsupported image";
}

static int check_create(const json_t *body, ax_error *err)
{
	const json_t *image = json_object_get(body, "image"), *ep = json_object_get(body, "entrypoint");
	const json_t *timeout = json_object_get(body, "timeout"), *limits = json_object_get(body, "resourceLimits");
	const json_t *meta = json_object_get(body, "metadata");
	const char *uri, *problem, *k;
	ax_net_mode mode = AX_NET_ISOLATED;
	json_t *x;
	size_t i;

	const json_t *snapshot = json_object_get(body, "snapshotId");

	if (snapshot && image) {
		ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER", "give either image or snapshotId, not both");
		return -1;
	}
	if (snapshot && (!json_is_string(snapshot) || !json_string_length(snapshot))) {
		ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER", "snapshotId must be a non-empty string");
		return -1;
	}
	uri = json_string_value(json_object_get(image, "uri"));
	if (!uri && !snapshot) {
		ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER", "image.uri (or snapshotId) is required");
		return -1;
	}
	problem = uri ? image_problem(uri) : NULL;
	if (problem) {
		ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER",
			      "%s: '%s'. Supported images: \"host\" (the host's system directories, read-only) and "
			      "\"rootfs:/abs/path\" (a directory tree)", problem, uri);
		return -1;
	}
	if ((ep || !snapshot) && (!json_is_array(ep) || json_array_size(ep) == 0)) {
		ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER", "entrypoint must be a non-empty array of strings");
		return -1;
	}
	json_array_foreach(ep, i, x)
		if (!json_is_string(x)) {
			ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER", "entrypoint[%zu] is not a string", i);
			return -1;
		}
	if (!string_map(limits)) {
		ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER", "resourceLimits must be an object of strings");
		return -1;
	}
	if (timeout && !json_is_null(timeout) &&
	    (!json_is_integer(timeout) || json_integer_value(timeout) < MIN_TIMEOUT)) {
		ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER",
			      "timeout must be an integer of at least %d seconds, or null for no expiry", MIN_TIMEOUT);
		return -1;
	}
	if (json_object_get(body, "env") && !string_map(json_object_get(body, "env"))) {
		ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER", "env must be an object of strings");
		return -1;
	}
	/* extensions: string to string (spec); allox.mcp.servers reaches the agent. */
	if (json_object_get(body, "extensions") && !string_map(json_object_get(body, "extensions"))) {
		ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER", "extensions must be an object of strings");
		return -1;
	}
	if (ax_net_mode_parse(json_string_value(json_object_get(json_object_get(body, "extensions"), AX_NET_EXTENSION)),
			      &mode) < 0) {
		ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER",
			      "extensions.%s must be \"isolated\", \"none\" or \"host\"", AX_NET_EXTENSION);
		return -1;
	}
	if (meta && !string_map(meta)) {
		ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER", "metadata must be an object of strings");
		return -1;
	}
	json_object_foreach((json_t *)meta, k, x)
		if (strncmp(k, "opensandbox.io/", 15) == 0 || !*k) {
			ax_wire_fail(err, "SANDBOX::INVALID_METADATA_LABEL", "metadata key '%s' is reserved or empty", k);
			return -1;
		}
	for (int l = 0; l < AX_LIMIT_N; l++) {
		const char *v = json_string_value(json_object_get(limits, ax_limit_key((ax_limit_kind)l))), *why = "";
		long long n;

		if (v && ax_limit_parse((ax_limit_kind)l, v, &n, &why) < 0) {
			ax_wire_fail(err, "SANDBOX::INVALID_PARAMETER", "resourceLimits.%s '%s': %s",
				      ax_limit_key((ax_limit_kind)l), v, why);
			return -1;
		}
	}
	return ax_create_fields_check(body, mode, err);
}


/* A create holds the lock to reserve its sandbox and to record what it
 * started, not while it starts it (10-50 ms, up to the runtime's timeouts),
 * so requests about other sandboxes go on meanwhile. A reserved sandbox is
 * in e->sandboxes as Pending: listed, and refused by what needs it running
 * (pause, snapshot); delete and endpoint wait for its start to end
 * (settled), the reaper leaves it alone, and e->started is broadcast when it
 * runs or is removed. An engine that dies meanwhile leaves a Pending record
 * on disk, which the next one removes (ax_sandboxes_adopt). */

/* Reserve sandbox ID (lock held): fill REC from snapshot SNAP when given,
 * make its state directory DIR, save it and enter it Pending. Entered
 * before the lock goes, it refers to the snapshot's layers, so none can be
 * retired before the sandbox runs on it, and anything allocated per sandbox
 * from the records in e->sandboxes is seen by concurrent creates. -1 with
 * ERR on failure. */
static int reserve(ax_engine *e, const char *id, const char *dir, const char *snap, json_t *rec, ax_error *err)
{
	ax_error why;

	if (snap[0] && ax_snapshot_restore_into(e, snap, rec, err) < 0)
		return -1;
	if (!dir || ax_mkdir_p(dir, 0700, &why) < 0 || ax_claim_uids(e, rec, dir, &why) < 0 ||
	    ax_volumes_prepare(e, rec, &why) < 0 || ax_store_save_nosync(e, rec, &why) < 0) {
		if (!dir)
			ax_fail(&why, AX_CODE_NOMEM, "out of memory");
		ax_engine_log(e, "create %s failed: %s", id, why.message);
		if (strstr(why.peer_code, "::"))
			*err = why;
		else
			ax_wire_fail(err, "SANDBOX::PROVISIONING_ERROR", "cannot start sandbox: %s", why.message);
		if (dir)
			ax_rt_remove_state(dir, &why);
		ax_release_uids(e, rec, dir);
		return -1;
	}
	json_object_set(e->sandboxes, id, rec);
	return 0;
}

/* The start of sandbox ID failed (RUNTIME NULL, WHY says why), or its
 * record went while it started (nothing removes a Pending record today;
 * should something, what started must not outlive it). Lock held: end what
 * started, remove its state and record; the failure in ERR. */
static void abandon(ax_engine *e, const char *id, const char *dir, json_t *runtime, ax_error *why, ax_error *err)
{
	if (runtime) {
		json_t *gone = json_pack("{s:O}", "runtime", runtime);
		ax_rt_handle h;

		ax_record_handle(gone, &h);
		ax_rt_kill(&h, id, NULL);
		ax_sandbox_collect(&h, 100);
		json_decref(gone);
		json_decref(runtime);
		ax_fail(why, AX_CODE_GONE, "the sandbox was deleted while it started");
	}
	ax_engine_log(e, "create %s failed: %s", id, why->message);
	/* A failure the request caused (a volume's path, say) is the client's. */
	if (strstr(why->peer_code, "::"))
		*err = *why;
	else
		ax_wire_fail(err, "SANDBOX::PROVISIONING_ERROR", "cannot start sandbox: %s", why->message);
	ax_egress_stop(e->egress, id);
	ax_volumes_release(e, json_object_get(e->sandboxes, id));
	if (dir)
		ax_rt_remove_sandbox(dir, why);
	ax_release_uids(e, json_object_get(e->sandboxes, id), dir);
	json_object_del(e->sandboxes, id);
	ax_layers_gc(e);
	pthread_cond_broadcast(&e->started);
}

/* The record of new sandbox ID as create request BODY (checked) asks. */
static json_t *new_record(ax_engine *e, const char *id, const json_t *body)
{
	const json_t *meta = json_object_get(body, "metadata"), *timeout = json_object_get(body, "timeout");
	const json_t *ext = json_object_get(body, "extensions");
	char now[32], exp[32], token[65];
	json_t *rec;

	ax_time_rfc3339(ax_engine_now(e), now);
	/* A restored sandbox gets no entrypoint from its snapshot (as the reference server). */
	rec = json_pack("{s:s, s:{s:O}, s:o, s:o, s:o, s:o, s:s}", "id", id, "image", "uri",
			json_object_get(json_object_get(body, "image"), "uri") ?: json_null(), "entrypoint",
			json_object_get(body, "entrypoint") ? json_incref(json_object_get(body, "entrypoint"))
							    : json_pack("[sss]", "tail", "-f", "/dev/null"),
			"metadata", meta ? json_deep_copy(meta) : json_object(),
			"env", json_object_get(body, "env") ? json_incref(json_object_get(body, "env")) : json_object(),
			"resourceLimits", ax_effective_limits(e, json_object_get(body, "resourceLimits")), "createdAt",
			now);
	if (!rec)
		return NULL;
	if (json_is_integer(timeout)) {
		ax_time_rfc3339(ax_engine_now(e) + (time_t)json_integer_value(timeout), exp);
		json_object_set_new(rec, "expiresAt", json_string(exp));
	}
	/* Its network: kept in the record (restarts and restores of the
	 * engine see it) and shown by get. */
	json_object_set_new(rec, "network", json_string(json_string_value(json_object_get(ext, AX_NET_EXTENSION)) ?: "isolated"));
	/* The egress policy in force, as checked (check_create), and the egress
	 * API's token for this sandbox (egress_api.c). */
	if (json_object_get(body, "networkPolicy")) {
		char why[8];

		json_object_set_new(rec, "networkPolicy", ax_policy_normalize(json_object_get(body, "networkPolicy"),
									      why, sizeof why));
	}
	if (json_array_size(json_object_get(body, "volumes")))
		json_object_set_new(rec, "volumes", json_deep_copy(json_object_get(body, "volumes")));
	if (ax_random_hex(token, 32) == 0)
		json_object_set_new(rec, "egressToken", json_string(token));
	/* MCP servers for the agent: in its environment, which the record keeps
	 * (so a restart of the sandbox gets them too) and the API never shows. */
	if (json_is_string(json_object_get(ext, "allox.mcp.servers")))
		json_object_set(json_object_get(rec, "env"), "ALLOX_AGENT_MCP_SERVERS",
				json_object_get(ext, "allox.mcp.servers"));
	ax_record_set_status(rec, e, "Pending", "SANDBOX_STARTING", NULL);
	return rec;
}

/* Start reserved sandbox REC (lock not held) and record it Running; its
 * view, or NULL with ERR (and nothing left of it). */
static json_t *start(ax_engine *e, const char *id, const char *dir, json_t *rec, ax_error *err)
{
	json_t *spec, *runtime, *v;
	ax_error why;

	/* spawn reads a copy: requests may change the record meanwhile. */
	pthread_mutex_lock(&e->lock);
	spec = json_deep_copy(rec);
	if (spec && e->host_mask[0])
		json_object_set_new(spec, "hostMask", json_string(e->host_mask));
	pthread_mutex_unlock(&e->lock);

	runtime = spec ? ax_sandbox_spawn(e, spec, &why) : NULL;
	if (!spec)
		ax_fail(&why, AX_CODE_NOMEM, "out of memory");
	json_decref(spec);

	pthread_mutex_lock(&e->lock);
	if (!runtime || json_object_get(e->sandboxes, id) != rec) {
		abandon(e, id, dir, runtime, &why, err);
		pthread_mutex_unlock(&e->lock);
		return NULL;
	}
	json_object_set_new(rec, "runtime", runtime);
	/* Still Pending, now with its runtime: an engine that dies before the
	 * Running record is saved leaves a record the next one can clean up
	 * (an engine crash, not a power cut: no fsync on the create path). */
	if (ax_store_save_nosync(e, rec, &why) < 0)
		ax_engine_log(e, "cannot save %s: %s", id, why.message);
	if (e->create_delay_ms > 0) {
		pthread_mutex_unlock(&e->lock);
		nanosleep(&(struct timespec){ e->create_delay_ms / 1000, (e->create_delay_ms % 1000) * 1000000L }, NULL);
		pthread_mutex_lock(&e->lock);
	}
	ax_record_set_status(rec, e, "Running", "SANDBOX_RUNNING",
			     json_string_value(json_object_get(json_object_get(rec, "runtime"), "note")));
	if (ax_store_save_nosync(e, rec, &why) < 0)
		ax_engine_log(e, "cannot save %s: %s", id, why.message);
	ax_engine_log(e, "created %s (%s)", id, json_string_value(json_object_get(json_object_get(rec, "image"), "uri")));
	v = ax_record_view(rec, true);
	pthread_cond_broadcast(&e->started);
	pthread_mutex_unlock(&e->lock);
	return v;
}

json_t *ax_sandbox_create(ax_engine *e, const json_t *body, ax_error *err)
{
	const char *snapshot_id = json_string_value(json_object_get(body, "snapshotId"));
	char id[37], *dir, snap[128] = "";
	json_t *rec, *v = NULL;

	if (check_create(body, err) < 0 || ax_volumes_check(e, json_object_get(body, "volumes"), err) < 0)
		return NULL;
	if (ax_new_uuid(id) < 0) {
		ax_wire_fail(err, "GENERAL::UNKNOWN_ERROR", "no randomness for an id");
		return NULL;
	}
	rec = new_record(e, id, body);
	if (!rec) {
		ax_wire_fail(err, "GENERAL::UNKNOWN_ERROR", "out of memory");
		return NULL;
	}
	if (snapshot_id)
		snprintf(snap, sizeof snap, "%s", snapshot_id);
	/* Whatever the image: a restore learns it from its snapshot. */
	ax_sandboxes_scan_host(e);
	dir = ax_store_dir(e, id);
	pthread_mutex_lock(&e->lock);
	if (reserve(e, id, dir, snap, rec, err) < 0) {
		pthread_mutex_unlock(&e->lock);
	} else {
		pthread_mutex_unlock(&e->lock);
		v = start(e, id, dir, rec, err);
	}
	/* Under the lock: other threads hold the record through e->sandboxes. */
	pthread_mutex_lock(&e->lock);
	json_decref(rec);
	pthread_mutex_unlock(&e->lock);
	if (v)
		ax_add_entrypoint_status(e, v);
	free(dir);
	return v;
}
