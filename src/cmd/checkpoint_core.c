#include "cmd/checkpoint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "lib/http.h"
#include "api/lifecycle_decode.h"
#include "lib/timeutil.h"

#define SIZE_HEADER "X-Allox-Snapshot-Size"

char *ax_checkpoint_path(const char *id)
{
	char *eid = ax_http_escape(id), *path = NULL;

	if (eid && asprintf(&path, "/snapshots/%s", eid) < 0)
		path = NULL;
	free(eid);
	return path;
}

static const char *state_of(const json_t *snap)
{
	return json_string_value(json_object_get(json_object_get(snap, "status"), "state"));
}

json_t *ax_checkpoint_object(const json_t *snap)
{
	return ax_lc_snapshot_object(snap);
}

/* The layer size from the engine's header on the last answer, -1 when absent. */
static long long size_header(ax_lifecycle *lc)
{
	const char *h = ax_http_last_header(&lc->http, SIZE_HEADER);
	long long size;
	char *end;

	if (!h)
		return -1;
	errno = 0;
	size = strtoll(h, &end, 10);
	return errno || end == h || size < 0 ? -1 : size;
}

/* GET the snapshot; *SIZE from the engine's size header, -1 when absent. */
static json_t *get_snapshot(ax_lifecycle *lc, const char *id, long long *size, ax_error *err)
{
	char *path = ax_checkpoint_path(id);
	json_t *snap = NULL;

	*size = -1;
	if (!path) {
		ax_fail(err, AX_CODE_NOMEM, "out of memory");
		return NULL;
	}
	if (ax_lc_call(lc, "GET", path, NULL, 200, &snap, err) == 0)
		*size = size_header(lc);
	free(path);
	return snap;
}

json_t *ax_checkpoint_take(ax_ctx *ctx, ax_lifecycle *lc, const char *sandbox_id, const char *name, ax_error *err)
{
	long long limit = ax_config_int(ctx->config, "checkpoint_create_timeout"), size = -1;
	char *eid = ax_http_escape(sandbox_id), *path = NULL;
	json_t *body = name ? json_pack("{s:s}", "name", name) : json_object(), *snap = NULL, *out = NULL;
	useconds_t pause = 2000, cap;
	double t0 = ax_mono_s();
	const char *id, *state;

	if (!eid || asprintf(&path, "/sandboxes/%s/snapshots", eid) < 0) {
		path = NULL;
		ax_fail(err, AX_CODE_NOMEM, "out of memory");
		goto out;
	}
	if (ax_lc_call(lc, "POST", path, body, 202, &snap, err) < 0)
		goto out;
	/* The local engine answers a quick capture already Ready, with its size. */
	size = size_header(lc);
	id = json_string_value(json_object_get(snap, "id"));
	if (!id) {
		ax_fail(err, AX_CODE_PROTOCOL, "the server's snapshot answer has no id");
		goto out;
	}
	for (;;) {
		json_t *next;
		char idbuf[128];

		state = state_of(snap) ?: "";
		if (strcasecmp(state, "Ready") == 0)
			break;
		if (strcasecmp(state, "Failed") == 0) {
			const json_t *st = json_object_get(snap, "status");
			const char *why = json_string_value(json_object_get(st, "message"));

			if (!why || !*why)
				why = json_string_value(json_object_get(st, "reason"));
			ax_fail(err, AX_CODE_CHECKPOINT_FAILED, "Checkpoint '%s' failed: %s", id,
				why && *why ? why : "unknown error");
			goto out;
		}
		if ((ax_mono_s() - t0) >= (double)limit) {
			ax_fail(err, AX_CODE_CHECKPOINT_TIMEOUT, "Checkpoint '%s' did not become READY within %llds.",
				id, limit);
			goto out;
		}
		if (ctx->interrupted && *ctx->interrupted) {
			ax_fail_signal(err, (int)*ctx->interrupted, "stopped waiting for checkpoint '%s'", id);
			goto out;
		}
		/* A local capture takes milliseconds to a few seconds and a GET is
		 * cheap, so poll often at first: the wait overshoots the capture by at
		 * most 25 ms. Long captures (remote servers) are polled every 250 ms. */
		cap = (ax_mono_s() - t0) < 5.0 ? 25000 : 250000;
		usleep(pause);
		pause = pause * 3 / 2 < cap ? pause * 3 / 2 : cap;
		snprintf(idbuf, sizeof idbuf, "%s", id);
		next = get_snapshot(lc, idbuf, &size, err);
		if (!next)
			goto out;
		json_decref(snap);
		snap = next;
		id = json_string_value(json_object_get(snap, "id")) ?: "";
	}
	if (size < 0) {
		json_t *again = get_snapshot(lc, id, &size, err);

		if (!again)
			goto out;
		json_decref(snap);
		snap = again;
	}
	out = ax_checkpoint_object(snap);
	json_object_set_new(out, "size_bytes", size >= 0 ? json_integer(size) : json_null());
	json_object_set_new(out, "seconds", json_real((double)(long long)((ax_mono_s() - t0) * 1000 + 0.5) / 1000));
out:
	json_decref(body);
	json_decref(snap);
	free(path);
	free(eid);
	return out;
}

json_t *ax_checkpoint_list_all(ax_lifecycle *lc, const char *sandbox_id, ax_error *err)
{
	char *eid = sandbox_id ? ax_http_escape(sandbox_id) : NULL, *query = NULL;
	json_t *all;

	if (sandbox_id && (!eid || asprintf(&query, "sandboxId=%s", eid) < 0)) {
		free(eid);
		ax_fail(err, AX_CODE_NOMEM, "out of memory");
		return NULL;
	}
	all = ax_lc_list_all(lc, "/snapshots", query, err);
	free(query);
	free(eid);
	return all;
}

/* Seconds since the epoch with the fraction, for ordering; missing sorts lowest. */
static double created_seconds(const json_t *snap)
{
	const char *s = json_string_value(json_object_get(snap, "createdAt"));
	const char *dot = s ? strchr(s, '.') : NULL;
	double frac = 0, scale = 0.1;
	time_t t;

	if (!s || ax_time_parse_rfc3339(s, &t) < 0)
		return -1;
	for (const char *p = dot ? dot + 1 : ""; *p >= '0' && *p <= '9'; p++, scale /= 10)
		frac += (*p - '0') * scale;
	return (double)t + frac;
}

char *ax_checkpoint_latest(ax_lifecycle *lc, const char *sandbox_id, ax_error *err)
{
	json_t *all = ax_checkpoint_list_all(lc, sandbox_id, err), *snap, *best = NULL;
	double best_t = 0;
	char *id = NULL;
	size_t i;

	if (!all)
		return NULL;
	json_array_foreach(all, i, snap) {
		double t = created_seconds(snap);

		if (strcasecmp(state_of(snap) ?: "", "Ready") != 0 ||
		    strcmp(json_string_value(json_object_get(snap, "sandboxId")) ?: "", sandbox_id) != 0)
			continue;
		if (!best || t > best_t) {
			best = snap;
			best_t = t;
		}
	}
	if (best)
		id = strdup(json_string_value(json_object_get(best, "id")) ?: "");
	else
		ax_fail(err, AX_CODE_NOT_FOUND, "No READY checkpoint found for sandbox '%s'.", sandbox_id);
	json_decref(all);
	return id;
}
