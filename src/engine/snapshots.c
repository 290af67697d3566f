/*
 * Checkpoints of the local engine: the snapshot routes of the lifecycle API.
 *
 * A snapshot is a copy of a sandbox's writable overlay layer, taken while the
 * sandbox is frozen and kept read-only under engine/layers/<snapshot id>.
 * Restoring stacks the snapshot's layers (its own, then those its source was
 * restored from) above the image, under a fresh writable layer: nothing is
 * copied, and a snapshot of a restored sandbox stores only its own changes.
 * Layers are shared by reference and go only when no snapshot and no sandbox
 * refers to them, so deleting a snapshot never breaks a sandbox built on it.
 */
#include "engine/engine.h"
#include "engine/sandbox.h"
#include "engine/wire_error.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/runtime/disk.h"
#include "lib/fs.h"
#include "engine/runtime/runtime.h"
#include "lib/timeutil.h"

#define PARTIAL_SUFFIX ".partial"
#define DELETING_SUFFIX ".deleting"
#define CAPTURE_ANSWER_WAIT_MS 50L

/* ---------- records ---------- */

static const char *snap_state(const json_t *snap)
{
	return json_string_value(json_object_get(json_object_get(snap, "status"), "state"));
}

static void snap_status(ax_engine *e, json_t *snap, const char *state, const char *reason, const char *message)
{
	char now[32];
	json_t *st = json_pack("{s:s, s:s}", "state", state, "reason", reason);

	ax_time_rfc3339(ax_engine_now(e), now);
	if (message && *message)
		json_object_set_new(st, "message", json_string(message));
	json_object_set_new(st, "lastTransitionAt", json_string(now));
	json_object_set_new(snap, "status", st);
}

static char *record_path(const ax_engine *e, const char *id)
{
	char *path = NULL;

	if (asprintf(&path, "%s/%s.json", e->snapshots_dir, id) < 0)
		return NULL;
	return path;
}

/* DURABLE: flushed to disk. A snapshot still Creating needs only to
 * survive an engine crash (the page cache does): the next engine fails it. */
static void snap_save_as(ax_engine *e, const json_t *snap, bool durable)
{
	const char *id = json_string_value(json_object_get(snap, "id"));
	char *path = record_path(e, id), *text = json_dumps(snap, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	ax_error err;

	if (!path || !text)
		ax_engine_log(e, "cannot save snapshot %s: out of memory", id);
	else if ((durable ? ax_write_file_atomic : ax_write_file_replace)(path, text, strlen(text), 0600, &err) < 0)
		ax_engine_log(e, "cannot save snapshot %s: %s", id, err.message);
	free(text);
	free(path);
}

static void snap_save(ax_engine *e, const json_t *snap)
{
	snap_save_as(e, snap, true);
}

/* What the API shows: the spec's Snapshot has exactly these fields. */
static json_t *snap_view(const json_t *snap)
{
	static const char *const keys[] = { "id", "sandboxId", "name", "status", "createdAt" };
	json_t *v = json_object();

	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		json_t *x = json_object_get(snap, keys[i]);

		if (x)
			json_object_set_new(v, keys[i], json_deep_copy(x));
	}
	return v;
}

/* Its size on disk, -1 when not known (the routes put it in a header: the
 * spec's Snapshot allows no extra field). */
static long long size_of(const json_t *snap)
{
	const json_t *size = json_object_get(snap, "sizeBytes");

	return json_is_integer(size) ? (long long)json_integer_value(size) : -1;
}

static char *layer_path(const ax_engine *e, const char *id, const char *suffix)
{
	char *path = NULL;

	if (asprintf(&path, "%s/%s%s", e->layers_dir, id, suffix) < 0)
		return NULL;
	return path;
}

unsigned *ax_layer_bases(const json_t *rec)
{
	const json_t *layers = json_object_get(rec, "layers"), *bases = json_object_get(rec, "layerBases");
	size_t n = json_array_size(layers);
	unsigned *v;

	if (!n)
		return NULL;
	v = calloc(n, sizeof *v);
	for (size_t i = 0; v && i < n; i++) {
		const char *id = json_string_value(json_array_get(layers, i)) ?: "";

		/* Layers of engines before uid ranges were stored unshifted. */
		v[i] = (unsigned)json_integer_value(json_object_get(bases, id));
	}
	return v;
}

char **ax_layer_paths(const ax_engine *e, const json_t *layers)
{
	size_t n = json_array_size(layers), i;
	char **v;

	if (!n)
		return NULL;
	v = calloc(n + 1, sizeof *v);
	for (i = 0; v && i < n; i++) {
		v[i] = layer_path(e, json_string_value(json_array_get(layers, i)) ?: "", "");
		if (!v[i]) {
			for (size_t j = 0; j < i; j++)
				free(v[j]);
			free(v);
			return NULL;
		}
	}
	return v;
}

/* Milliseconds, so "latest" can tell apart checkpoints taken in one second. */
static void created_at(const ax_engine *e, char out[32])
{
	struct timespec ts;
	char sec[32];

	/* The test clock is an offset in whole seconds; apply it to one reading. */
	time_t offset = ax_engine_now(e) - time(NULL);

	clock_gettime(CLOCK_REALTIME, &ts);
	ax_time_rfc3339(ts.tv_sec + offset, sec);
	/* "…:SSZ" -> "…:SS.mmmZ" */
	sec[strlen(sec) - 1] = '\0';
	snprintf(out, 32, "%.19s.%03dZ", sec, (int)(ts.tv_nsec / 1000000) % 1000);
}

/* ---------- durability ----------
 * A Ready snapshot is answered before it is on disk and synced by the
 * engine's next tick (ax_snapshots_sync), so no command waits for the disk:
 * syncing at once cost 2-9 ms per checkpoint, and its writes slowed the
 * commands after it (a restore right after a 100 MiB checkpoint: 19 -> 40 ms).
 * Syncing once a second still landed in the middle of whatever came next, so
 * the tick syncs when the engine has had no request for a second (the user
 * paused), or when the oldest has waited 35 s (a steady stream of work).
 * Until then its record carries UNSYNCED, the boot it was taken in. An
 * engine restart keeps it (the page cache outlived the engine); after a
 * reboot the layer may be torn, so the snapshot is marked Failed rather
 * than restored wrong. */
#define UNSYNCED "unsyncedInBoot"

static void read_boot_id(char out[64])
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	if (!f || !fgets(out, 64, f))
		snprintf(out, 64, "unknown");
	out[strcspn(out, "\n")] = '\0';
	if (f)
		fclose(f);
}

#define SYNC_WHEN_IDLE_MS 1000
/* The kernel's own writeback has written data this old by then (dirty pages
 * expire after 30 s, the flusher wakes every 5 s: vm.dirty_expire_centisecs,
 * vm.dirty_writeback_centisecs), so a forced sync finds little left to do. */
#define SYNC_AT_MOST_MS 35000

/* Under e->lock. */
static void mark_unsynced(ax_engine *e, json_t *snap)
{
	json_object_set_new(snap, UNSYNCED, json_string(e->boot_id));
	if (!e->unsynced_since_ms)
		e->unsynced_since_ms = ax_mono_ms();
}

void ax_snapshots_sync(ax_engine *e, bool force)
{
	json_t *pending = json_array(), *snap, *x;
	long long now = ax_mono_ms();
	const char *id;
	size_t i;
	int fd;

	pthread_mutex_lock(&e->lock);
	if (force || now - atomic_load(&e->last_request_ms) >= SYNC_WHEN_IDLE_MS ||
	    (e->unsynced_since_ms && now - e->unsynced_since_ms >= SYNC_AT_MOST_MS)) {
		json_object_foreach(e->snapshots, id, snap)
			if (json_object_get(snap, UNSYNCED))
				json_array_append_new(pending, json_string(id));
		/* Those captured while we sync start the next round's clock. */
		e->unsynced_since_ms = 0;
	}
	pthread_mutex_unlock(&e->lock);
	if (json_array_size(pending) == 0) {
		json_decref(pending);
		return;
	}
	/* One syncfs writes every pending layer and record; those captured
	 * meanwhile wait for the next tick. */
	fd = open(e->layers_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || syncfs(fd) < 0) {
		ax_engine_log(e, "cannot sync checkpoints to disk: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		json_decref(pending);
		pthread_mutex_lock(&e->lock);
		if (!e->unsynced_since_ms)
			e->unsynced_since_ms = now;
		pthread_mutex_unlock(&e->lock);
		return;
	}
	/* The records lose their mark under the lock, each replaced without an
	 * fsync of its own (one each held the lock, and so every request, for
	 * 1-3 ms per checkpoint); a second syncfs, outside the lock, makes them
	 * durable together. An engine crash before it leaves the mark for the
	 * next engine of this boot to clear again; a power cut in those few
	 * milliseconds can leave a checkpoint whose data is on disk reported
	 * Failed after the reboot: the safe side. */
	pthread_mutex_lock(&e->lock);
	json_array_foreach(pending, i, x) {
		snap = json_object_get(e->snapshots, json_string_value(x));
		if (snap && json_object_get(snap, UNSYNCED)) {
			json_object_del(snap, UNSYNCED);
			snap_save_as(e, snap, false);
		}
	}
	pthread_mutex_unlock(&e->lock);
	if (syncfs(fd) < 0)
		ax_engine_log(e, "cannot sync checkpoint records to disk: %s", strerror(errno));
	close(fd);
	json_decref(pending);
}

/* ---------- capture ---------- */

typedef struct capture_job {
	ax_engine *e;
	char snapshot_id[37];
	char sandbox_id[128];
	char *src;   /* the sandbox's writable layer */
	char *dst;   /* engine/layers/<snapshot id> */
	bool waited; /* a request waits for the state to answer (under e->lock) */
} capture_job;

static void job_free(capture_job *job)
{
	free(job->src);
	free(job->dst);
	free(job);
}

/* The copy runs without the engine lock: the sandbox is frozen, so its layer
 * holds still, and other requests go on meanwhile. The thaw (a third of a
 * millisecond with cgroup v1's freezer) comes after the waiting request has
 * its answer, so it runs while the answer goes out: nothing in the answer
 * depends on it, and a request to the sandbox made meanwhile waits it out. */
static void *capture_thread(void *arg)
{
	capture_job *job = arg;
	ax_engine *e = job->e;
	char *partial = layer_path(e, job->snapshot_id, PARTIAL_SUFFIX), msg[768];
	double t0 = ax_mono_s();
	long long size = 0;
	ax_error err;
	json_t *snap;
	int rc;

	ax_error_clear(&err);
	rc = partial ? ax_layer_copy(job->src, partial, &size, &err)
		     : ax_fail(&err, AX_CODE_NOMEM, "out of memory");
	if (rc == 0 && rename(partial, job->dst) < 0)
		rc = ax_fail(&err, AX_CODE_IO, "cannot keep the layer: %s", strerror(errno));
	if (rc < 0 && partial)
		ax_rt_remove_state(partial, &(ax_error){ 0 });

	pthread_mutex_lock(&e->lock);
	snap = json_object_get(e->snapshots, job->snapshot_id);
	if (snap && rc == 0) {
		double took = (ax_mono_s() - t0);

		snprintf(msg, sizeof msg, "captured %lld bytes in %.3f s", size, took);
		json_object_set_new(snap, "sizeBytes", json_integer(size));
		json_object_set_new(snap, "captureSeconds", json_real(took));
		snap_status(e, snap, "Ready", "snapshot_ready", msg);
		ax_engine_log(e, "snapshot %s of %s ready (%s)", job->snapshot_id, job->sandbox_id, msg);
	} else if (snap) {
		snap_status(e, snap, "Failed", "snapshot_capture_failed", err.message);
		ax_engine_log(e, "snapshot %s of %s failed: %s", job->snapshot_id, job->sandbox_id, err.message);
	}
	/* The answer waits for the state, not for the disk (see ax_snapshots_sync). */
	if (snap && rc == 0)
		mark_unsynced(e, snap);
	if (snap)
		snap_save_as(e, snap, false);
	pthread_cond_broadcast(&e->captured);
	while (job->waited)
		pthread_cond_wait(&e->captured, &e->lock);
	ax_sandbox_thaw_after_capture(e, job->sandbox_id);
	/* Counted until thawed: the engine stops only after every thaw. */
	e->captures--;
	pthread_cond_broadcast(&e->captured);
	pthread_mutex_unlock(&e->lock);
	free(partial);
	job_free(job);
	return NULL;
}

/* Start SNAP's capture; the job, which the capture thread frees once
 * JOB->waited is false, is returned in *STARTED. */
static int start_capture(ax_engine *e, json_t *snap, const char *sandbox_id, capture_job **started, ax_error *err)
{
	capture_job *job = calloc(1, sizeof *job);
	char *sdir = ax_store_dir(e, sandbox_id);
	pthread_attr_t attr;
	pthread_t tid;
	int rc;

	if (!job || !sdir) {
		free(job);
		free(sdir);
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	}
	job->e = e;
	job->waited = true;
	snprintf(job->snapshot_id, sizeof job->snapshot_id, "%s", json_string_value(json_object_get(snap, "id")));
	snprintf(job->sandbox_id, sizeof job->sandbox_id, "%s", sandbox_id);
	job->src = ax_disk_upper(sdir);
	job->dst = layer_path(e, job->snapshot_id, "");
	free(sdir);
	if (!job->src || !job->dst) {
		job_free(job);
		return ax_fail(err, AX_CODE_NOMEM, "out of memory");
	}
	if (ax_sandbox_freeze_for_capture(e, sandbox_id, err) < 0) {
		job_free(job);
		return -1;
	}
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&tid, &attr, capture_thread, job);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		ax_sandbox_thaw_after_capture(e, sandbox_id);
		job_free(job);
		return ax_fail(err, AX_CODE_IO, "cannot start the capture: %s", strerror(rc));
	}
	e->captures++;
	*started = job;
	return 0;
}

/* Most local captures take a few milliseconds: answering once they are done
 * spares the client a polling round. A longer capture is answered as
 * Creating after CAPTURE_ANSWER_WAIT_MS. Called with e->lock held. */
static void await_capture(ax_engine *e, const json_t *snap)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += CAPTURE_ANSWER_WAIT_MS * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	while (strcmp(snap_state(snap) ?: "", "Creating") == 0)
		if (pthread_cond_timedwait(&e->captured, &e->lock, &until) == ETIMEDOUT)
			break;
}

/* Lock held; REC is Running sandbox SANDBOX_ID. */
static json_t *new_snapshot(ax_engine *e, const json_t *rec, const char *sandbox_id, const char *id,
			    const json_t *name)
{
	json_t *snap, *layers, *bases, *x;
	char now[32];
	size_t i;

	created_at(e, now);
	/* The new snapshot's layers: its own, then the ones its source runs on. */
	layers = json_pack("[s]", id);
	json_array_foreach(json_object_get(rec, "layers"), i, x)
		json_array_append(layers, x);
	snap = json_pack("{s:s, s:s}", "id", id, "sandboxId", sandbox_id);
	if (name)
		json_object_set_new(snap, "name", json_deep_copy(name));
	snap_status(e, snap, "Creating", "snapshot_accepted", NULL);
	json_object_set_new(snap, "createdAt", json_string(now));
	json_object_set(snap, "image", json_object_get(rec, "image"));
	json_object_set_new(snap, "layers", layers);
	/* Whose uids own each layer's files on disk: the capture copies the
	 * upper layer as it is, owned by the sandbox's range. */
	bases = json_object_get(rec, "layerBases") ? json_deep_copy(json_object_get(rec, "layerBases")) : json_object();
	json_object_set(bases, id, json_object_get(rec, "uidBase") ?: json_integer(0));
	json_object_set_new(snap, "layerBases", bases);
	return snap;
}

/* Lock held. */
static json_t *capture(ax_engine *e, const char *sandbox_id, const json_t *body, long long *size, ax_error *err)
{
	json_t *rec = ax_sandbox_find(e, sandbox_id, err), *name, *snap, *x, *v;
	const char *state = json_string_value(json_object_get(json_object_get(rec, "status"), "state"));
	capture_job *job = NULL;
	ax_error why;
	char id[37];
	const char *k;

	if (!rec)
		return NULL;
	json_object_foreach((json_t *)body, k, x)
		if (strcmp(k, "name") != 0) {
			ax_wire_fail(err, "SNAPSHOT::INVALID_PARAMETER", "unknown field '%s' (only name is allowed)", k);
			return NULL;
		}
	name = json_object_get(body, "name");
	if (name && (!json_is_string(name) || !json_string_length(name))) {
		ax_wire_fail(err, "SNAPSHOT::INVALID_PARAMETER", "name must be a non-empty string");
		return NULL;
	}
	if (strcmp(state ?: "", "Running") != 0) {
		ax_wire_fail(err, "SNAPSHOT::INVALID_SOURCE_STATE", "sandbox %s is %s; only a Running sandbox can be captured",
			     sandbox_id, state ?: "in an unknown state");
		return NULL;
	}
	if (ax_new_uuid(id) < 0) {
		ax_wire_fail(err, "GENERAL::UNKNOWN_ERROR", "no randomness for an id");
		return NULL;
	}
	snap = new_snapshot(e, rec, sandbox_id, id, name);
	json_object_set(e->snapshots, id, snap);
	if (start_capture(e, snap, sandbox_id, &job, &why) < 0) {
		snap_status(e, snap, "Failed", "snapshot_runtime_failed", why.message);
		ax_engine_log(e, "snapshot %s of %s failed: %s", id, sandbox_id, why.message);
	}
	/* A quick capture is answered Ready and the capture thread writes that
	 * record; only a capture still running when the answer goes out leaves a
	 * Creating record (so a crashed engine's successor can say it failed). */
	if (strcmp(snap_state(snap) ?: "", "Creating") != 0)
		snap_save(e, snap);
	await_capture(e, snap);
	if (strcmp(snap_state(snap) ?: "", "Creating") == 0)
		snap_save_as(e, snap, false);
	*size = size_of(snap);
	v = snap_view(snap);
	json_decref(snap);
	if (job) {
		/* Answered: the capture thread may thaw and free the job. */
		job->waited = false;
		pthread_cond_broadcast(&e->captured);
	}
	return v;
}

json_t *ax_snapshot_create(ax_engine *e, const char *sandbox_id, const json_t *body, long long *size, ax_error *err)
{
	json_t *v;

	pthread_mutex_lock(&e->lock);
	v = capture(e, sandbox_id, body, size, err);
	pthread_mutex_unlock(&e->lock);
	return v;
}

/* ---------- restore ---------- */

int ax_snapshot_restore_into(ax_engine *e, const char *snapshot_id, json_t *rec, ax_error *err)
{
	const json_t *snap = json_object_get(e->snapshots, snapshot_id);

	if (!snap)
		return ax_wire_fail(err, "SNAPSHOT::NOT_FOUND", "snapshot %s not found", snapshot_id);
	if (strcmp(snap_state(snap) ?: "", "Ready") != 0)
		return ax_wire_fail(err, "SNAPSHOT::NOT_READY", "snapshot %s is %s, not Ready", snapshot_id,
				    snap_state(snap) ?: "in an unknown state");
	if (!json_object_get(snap, "image") || !json_array_size(json_object_get(snap, "layers")))
		return ax_wire_fail(err, "SNAPSHOT::INVALID_RESTORE_CONFIG", "snapshot %s has no image or layers",
				    snapshot_id);
	json_object_set_new(rec, "snapshotId", json_string(snapshot_id));
	json_object_set_new(rec, "image", json_deep_copy(json_object_get(snap, "image")));
	json_object_set_new(rec, "layers", json_deep_copy(json_object_get(snap, "layers")));
	if (json_object_get(snap, "layerBases"))
		json_object_set_new(rec, "layerBases", json_deep_copy(json_object_get(snap, "layerBases")));
	return 0;
}

/* ---------- list, get, delete ---------- */

static bool in_states(const json_t *snap, const json_t *states)
{
	size_t i;
	json_t *s;

	if (!json_array_size(states))
		return true;
	json_array_foreach(states, i, s)
		if (strcasecmp(json_string_value(s) ?: "", snap_state(snap) ?: "") == 0)
			return true;
	return false;
}

static json_t *list_view(void *unused, const json_t *snap)
{
	(void)unused;
	return snap_view(snap);
}

json_t *ax_snapshot_list(ax_engine *e, const json_t *states, const char *sandbox, const ax_page *page, ax_error *err)
{
	json_t **sel, *snap, *out;
	const char *id;
	size_t n = 0;

	pthread_mutex_lock(&e->lock);
	sel = ax_select_begin(e->snapshots, err);
	if (!sel) {
		pthread_mutex_unlock(&e->lock);
		return NULL;
	}
	json_object_foreach(e->snapshots, id, snap)
		if ((!sandbox || strcmp(sandbox, json_string_value(json_object_get(snap, "sandboxId")) ?: "") == 0) &&
		    in_states(snap, states))
			sel[n++] = snap;
	out = ax_page_json(sel, n, page, list_view, NULL);
	pthread_mutex_unlock(&e->lock);
	free(sel);
	return out;
}

json_t *ax_snapshot_get(ax_engine *e, const char *id, long long *size, ax_error *err)
{
	json_t *snap, *v = NULL;

	pthread_mutex_lock(&e->lock);
	snap = json_object_get(e->snapshots, id);
	if (!snap) {
		ax_wire_fail(err, "SNAPSHOT::NOT_FOUND", "snapshot %s not found", id);
	} else {
		v = snap_view(snap);
		*size = size_of(snap);
	}
	pthread_mutex_unlock(&e->lock);
	return v;
}

/* Lock held. */
static int delete_snapshot(ax_engine *e, const char *id, ax_error *err)
{
	json_t *snap = json_object_get(e->snapshots, id);
	char *path;

	if (!snap)
		return ax_wire_fail(err, "SNAPSHOT::NOT_FOUND", "snapshot %s not found", id);
	if (strcmp(snap_state(snap) ?: "", "Creating") == 0)
		return ax_wire_fail(err, "SNAPSHOT::INVALID_STATE", "snapshot %s is still being created", id);
	path = record_path(e, id);
	if (!path || (unlink(path) < 0 && errno != ENOENT)) {
		ax_wire_fail(err, "GENERAL::UNKNOWN_ERROR", "cannot delete snapshot %s: %s", id,
			     path ? strerror(errno) : "out of memory");
		free(path);
		return -1;
	}
	free(path);
	json_object_del(e->snapshots, id);
	ax_layers_gc(e);
	ax_engine_log(e, "deleted snapshot %s", id);
	return 0;
}

int ax_snapshot_delete(ax_engine *e, const char *id, ax_error *err)
{
	int rc;

	pthread_mutex_lock(&e->lock);
	rc = delete_snapshot(e, id, err);
	pthread_mutex_unlock(&e->lock);
	return rc;
}

/* ---------- layers ---------- */

static void refer(json_t *used, const json_t *owners)
{
	const char *id;
	json_t *rec, *x;
	size_t i;

	json_object_foreach((json_t *)owners, id, rec)
		json_array_foreach(json_object_get(rec, "layers"), i, x)
			if (json_is_string(x))
				json_object_set_new(used, json_string_value(x), json_true());
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Unreferenced layers are renamed here, under the lock, so no restore can
 * pick them up; the slow removal happens in ax_layers_sweep, outside it. */
void ax_layers_gc(ax_engine *e)
{
	json_t *used = json_object();
	DIR *d = opendir(e->layers_dir);
	struct dirent *de;

	refer(used, e->snapshots);
	refer(used, e->sandboxes);
	while (d && (de = readdir(d))) {
		char *from, *to;

		if (de->d_name[0] == '.' || has_suffix(de->d_name, PARTIAL_SUFFIX) ||
		    has_suffix(de->d_name, DELETING_SUFFIX) || json_object_get(used, de->d_name))
			continue;
		from = layer_path(e, de->d_name, "");
		to = layer_path(e, de->d_name, DELETING_SUFFIX);
		if (from && to && rename(from, to) < 0)
			ax_engine_log(e, "cannot retire layer %s: %s", de->d_name, strerror(errno));
		free(from);
		free(to);
	}
	if (d)
		closedir(d);
	json_decref(used);
}

void ax_layers_sweep(ax_engine *e, bool partial_too)
{
	DIR *d = opendir(e->layers_dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char *path;
		ax_error err;

		if (!has_suffix(de->d_name, DELETING_SUFFIX) && !(partial_too && has_suffix(de->d_name, PARTIAL_SUFFIX)))
			continue;
		path = ax_path_join(e->layers_dir, de->d_name);
		if (path && ax_rt_remove_state(path, &err) < 0)
			ax_engine_log(e, "cannot remove %s: %s", path, err.message);
		free(path);
	}
	if (d)
		closedir(d);
}

/* ---------- start-up and shut-down ---------- */

int ax_snapshots_load(ax_engine *e, ax_error *err)
{
	DIR *d;
	struct dirent *de;

	read_boot_id(e->boot_id);
	if (ax_mkdir_p(e->snapshots_dir, 0700, err) < 0 || ax_mkdir_p(e->layers_dir, 0700, err) < 0)
		return -1;
	d = opendir(e->snapshots_dir);
	if (!d)
		return ax_fail(err, AX_CODE_IO, "cannot read %s: %s", e->snapshots_dir, strerror(errno));
	while ((de = readdir(d))) {
		char *path;
		json_t *snap;
		const char *id;

		if (de->d_name[0] == '.' || !has_suffix(de->d_name, ".json"))
			continue;
		path = ax_path_join(e->snapshots_dir, de->d_name);
		snap = path ? json_load_file(path, 0, NULL) : NULL;
		id = json_string_value(json_object_get(snap, "id"));
		if (id && strlen(id) + 5 == strlen(de->d_name) && strncmp(id, de->d_name, strlen(id)) == 0)
			json_object_set(e->snapshots, id, snap);
		else
			ax_engine_log(e, "ignoring %s: not a snapshot record", path ? path : de->d_name);
		json_decref(snap);
		free(path);
	}
	closedir(d);
	return 0;
}

/* A capture the last engine did not finish failed; its sandbox may still be
 * frozen, and its partial copy is garbage. A Ready snapshot not yet synced
 * when the machine went down failed too (see "durability"). */
void ax_snapshots_adopt(ax_engine *e)
{
	const char *id;
	json_t *snap;

	pthread_mutex_lock(&e->lock);
	json_object_foreach(e->snapshots, id, snap) {
		const char *taken_in = json_string_value(json_object_get(snap, UNSYNCED));

		if (strcmp(snap_state(snap) ?: "", "Creating") == 0) {
			snap_status(e, snap, "Failed", "snapshot_recovery_failed", "the engine stopped during the capture");
			snap_save(e, snap);
		} else if (taken_in && strcmp(taken_in, e->boot_id) == 0) {
			/* The last engine's, still in the page cache: sync it soon. */
			if (!e->unsynced_since_ms)
				e->unsynced_since_ms = ax_mono_ms();
		} else if (taken_in) {
			json_object_del(snap, UNSYNCED);
			snap_status(e, snap, "Failed", "snapshot_not_on_disk",
				    "the machine restarted before this checkpoint was written to disk");
			snap_save(e, snap);
		}
	}
	ax_layers_gc(e);
	pthread_mutex_unlock(&e->lock);
	ax_layers_sweep(e, true);
}

void ax_snapshots_drain(ax_engine *e, int seconds)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += seconds;
	pthread_mutex_lock(&e->lock);
	while (e->captures > 0)
		if (pthread_cond_timedwait(&e->captured, &e->lock, &until) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&e->lock);
}
