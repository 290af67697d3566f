/* Sandbox records: their status, their view in the API, finding them, and
 * the end of a sandbox (its processes, state and uids). */
#include "engine/sandbox.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/egress/egress.h"
#include "engine/runtime/disk.h"
#include "engine/runtime/untrusted.h"
#include "engine/volume.h"
#include "engine/wire_error.h"
#include "lib/fs.h"
#include "lib/timeutil.h"

void ax_record_set_status(json_t *rec, ax_engine *e, const char *state, const char *reason, const char *message)
{
	char now[32];
	json_t *st = json_object();

	ax_time_rfc3339(ax_engine_now(e), now);
	json_object_set_new(st, "state", json_string(state));
	if (reason)
		json_object_set_new(st, "reason", json_string(reason));
	if (message && *message)
		json_object_set_new(st, "message", json_string(message));
	json_object_set_new(st, "lastTransitionAt", json_string(now));
	json_object_set_new(rec, "status", st);
}

const char *ax_record_state(const json_t *rec)
{
	return json_string_value(json_object_get(json_object_get(rec, "status"), "state"));
}

void ax_record_handle(const json_t *rec, ax_rt_handle *h)
{
	const json_t *rt = json_object_get(rec, "runtime");

	memset(h, 0, sizeof *h);
	h->pid = (pid_t)json_integer_value(json_object_get(rt, "pid"));
	h->start = (unsigned long long)json_integer_value(json_object_get(rt, "start"));
	h->init_pid = (pid_t)json_integer_value(json_object_get(rt, "initPid"));
	h->init_start = (unsigned long long)json_integer_value(json_object_get(rt, "initStart"));
	h->net_pid = (pid_t)json_integer_value(json_object_get(rt, "netPid"));
	h->net_start = (unsigned long long)json_integer_value(json_object_get(rt, "netStart"));
	h->cgroup = json_is_true(json_object_get(rt, "cgroup"));
	snprintf(h->note, sizeof h->note, "%s", json_string_value(json_object_get(rt, "note")) ?: "");
}

/* The status file the agent keeps for the entrypoint (AG_STATUS_FILE_DEFAULT),
 * as a path below the root of the sandbox's writable layer. */
#define ENTRYPOINT_STATUS "run/allox/entrypoint.json"

/* The agent's status file, parsed; NULL when there is none or it is refused.
 * The sandbox controls that file: it is read only through untrusted.h (no
 * symlink followed, regular files only, never blocking, at most
 * AX_UNTRUSTED_MAX bytes), and never under e->lock. */
static json_t *entrypoint_file(ax_engine *e, const char *id)
{
	char *dir = ax_store_dir(e, id), *upper = dir ? ax_disk_upper(dir) : NULL;
	char *top = upper ? ax_path_join(upper, "top") : NULL, *text = NULL;
	int root = top ? ax_untrusted_root(top) : -1;
	json_t *ep = NULL;
	ax_error err;
	size_t len;

	/* A refusal is the sandbox's doing: the status just lacks the entrypoint's
	 * part (a log line per request would let it fill the engine's log). */
	if (root >= 0 && ax_untrusted_read(root, ENTRYPOINT_STATUS, AX_UNTRUSTED_MAX, &text, &len, &err) == 0)
		ep = json_loadb(text, len, 0, NULL);
	if (root >= 0)
		close(root);
	free(text);
	free(top);
	free(upper);
	free(dir);
	return ep;
}

/* Add what the entrypoint did to V, a sandbox as the API shows it (a copy
 * of its record made under the lock; this runs after the lock is released). */
void ax_add_entrypoint_status(ax_engine *e, json_t *v)
{
	json_t *status = json_object_get(v, "status"), *ep;
	const char *state;
	char msg[128];

	if (strcmp(json_string_value(json_object_get(status, "state")) ?: "", "Running") != 0)
		return;
	ep = entrypoint_file(e, json_string_value(json_object_get(v, "id")) ?: "");
	state = json_string_value(json_object_get(ep, "state"));
	if (state && strcmp(state, "exited") == 0) {
		snprintf(msg, sizeof msg, "entrypoint exited with code %lld",
			 (long long)json_integer_value(json_object_get(ep, "exitCode")));
		json_object_set_new(status, "reason", json_string("ENTRYPOINT_EXITED"));
		json_object_set_new(status, "message", json_string(msg));
	} else if (state && strcmp(state, "signaled") == 0) {
		snprintf(msg, sizeof msg, "entrypoint killed by signal %lld",
			 (long long)json_integer_value(json_object_get(ep, "signal")));
		json_object_set_new(status, "reason", json_string("ENTRYPOINT_EXITED"));
		json_object_set_new(status, "message", json_string(msg));
	} else if (state && strcmp(state, "failed") == 0) {
		json_object_set_new(status, "reason", json_string("ENTRYPOINT_FAILED"));
		if (json_is_string(json_object_get(ep, "error")))
			json_object_set(status, "message", json_object_get(ep, "error"));
	}
	json_decref(ep);
}

/* The record as the API shows it: no runtime internals, no environment.
 * Without the entrypoint's status, which add_entrypoint_status adds once
 * the lock is released. */
json_t *ax_record_view(const json_t *rec, bool created)
{
	static const char *const keys[] = { "id", "image", "snapshotId", "status", "metadata", "entrypoint",
					    "resourceLimits", "network", "networkPolicy", "expiresAt", "createdAt" };
	bool restored = json_object_get(rec, "snapshotId") != NULL;
	json_t *v = json_object();
	size_t i;

	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		json_t *x = json_object_get(rec, keys[i]);

		/* The spec omits image and snapshotId from the create answer, and a
		 * restored sandbox reports its snapshot, not the image under it. */
		if (!x || json_is_null(x) || (created && strcmp(keys[i], "image") == 0) ||
		    (created && strcmp(keys[i], "snapshotId") == 0) || (restored && strcmp(keys[i], "image") == 0))
			continue;
		json_object_set_new(v, keys[i], json_deep_copy(x));
	}
	return v;
}

/* A Pending record is a create in flight (see create): wait until the
 * sandbox runs or is gone. Lock held; its record, or NULL when it went. */
json_t *ax_sandbox_settled(ax_engine *e, const char *id)
{
	json_t *rec;

	while ((rec = json_object_get(e->sandboxes, id)) && strcmp(ax_record_state(rec) ?: "", "Pending") == 0)
		pthread_cond_wait(&e->started, &e->lock);
	return rec;
}

json_t *ax_sandbox_find(ax_engine *e, const char *id, ax_error *err)
{
	json_t *rec = json_object_get(e->sandboxes, id);

	if (!rec)
		ax_wire_fail(err, "SANDBOX::NOT_FOUND", "sandbox %s not found", id);
	return rec;
}

void ax_record_save(ax_engine *e, json_t *rec)
{
	ax_error err;

	if (ax_store_save(e, rec, &err) < 0)
		ax_engine_log(e, "cannot save record: %s", err.message);
}

/* ---------- helpers ---------- */
int ax_random_hex(char *out, size_t bytes)
{
	unsigned char raw[64];
	size_t i;

	if (bytes > sizeof raw || getrandom(raw, bytes, 0) != (ssize_t)bytes)
		return -1;
	for (i = 0; i < bytes; i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

int ax_new_uuid(char out[37])
{
	unsigned char b[16];

	if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
		return -1;
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
		 b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
	return 0;
}
void ax_release_uids(ax_engine *e, const json_t *rec, const char *dir)
{
	const json_t *base = json_object_get(rec, "uidBase");

	if (json_is_integer(base) && dir)
		ax_uidrange_release(&e->uids, dir, (unsigned)json_integer_value(base));
}
/* The engine is a child subreaper, so a sandbox's processes come back to it
 * when they end; collect them so no zombie outlives the sandbox. */
void ax_sandbox_collect(const ax_rt_handle *h, int tries)
{
	pid_t pids[3] = { h->pid, h->init_pid, h->net_pid };
	int i, left;

	do {
		left = 0;
		for (i = 0; i < 3; i++) {
			if (pids[i] <= 0)
				continue;
			if (waitpid(pids[i], NULL, WNOHANG) == 0)
				left++;
			else
				pids[i] = 0;
		}
		if (left && tries > 1)
			usleep(10000);
	} while (left && --tries > 0);
}

void ax_sandbox_destroy(ax_engine *e, const char *id, json_t *rec)
{
	ax_rt_handle h;
	ax_error err;
	char *dir = ax_store_dir(e, id);

	ax_record_handle(rec, &h);
	ax_endpoints_drop(e, id);
	ax_egress_stop(e->egress, id);
	ax_volumes_release(e, rec);
	/* Also without a runtime (an engine that died while spawning it): its
	 * processes and cgroups are then found by id alone. */
	if (ax_rt_kill(&h, id, &err) < 0)
		ax_engine_log(e, "kill %s: %s", id, err.message);
	ax_sandbox_collect(&h, 100);
	if (dir && ax_rt_remove_sandbox(dir, &err) < 0)
		ax_engine_log(e, "remove %s: %s", dir, err.message);
	ax_release_uids(e, rec, dir);
	free(dir);
	json_object_del(e->sandboxes, id);
	ax_layers_gc(e);
}
