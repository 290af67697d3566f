/* What happens to sandboxes between requests: expiry and exits (the
 * reaper), the host mask's rescans, re-adoption by a restarted engine, and
 * freezing for a capture. */
#include "engine/sandbox.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/egress/egress.h"
#include "engine/runtime/host_mask.h"
#include "lib/fs.h"
#include "lib/timeutil.h"

/* Why the sandbox's PID 1, its allox-agent, is gone, for its status. bwrap,
 * the agent's parent, exits with the agent's code, or 128+N when signal N
 * killed it; we see that when we reap bwrap, i.e. when this engine started
 * the sandbox (a re-adopted one's bwrap is not our child). */
static void agent_gone(const ax_rt_handle *h, char *msg, size_t n)
{
	int st = 0, i, code;
	pid_t r = 0;

	/* bwrap follows its child within moments; wait for it a little. */
	for (i = 0; i < 50 && h->pid > 0; i++) {
		r = waitpid(h->pid, &st, WNOHANG);
		if (r != 0)
			break;
		usleep(10000);
	}
	code = r == h->pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (code > 128)
		snprintf(msg, n, "the sandbox's agent (allox-agent, pid %d) was killed by signal %d (%s)", (int)h->init_pid,
			 code - 128, strsignal(code - 128));
	else if (code >= 0)
		snprintf(msg, n, "the sandbox's agent (allox-agent, pid %d) exited with code %d", (int)h->init_pid, code);
	else
		snprintf(msg, n, "the sandbox's agent (allox-agent, pid %d) is gone", (int)h->init_pid);
}

void ax_sandboxes_reap(ax_engine *e)
{
	time_t now = ax_engine_now(e);
	json_t *rec, *expired = json_array();
	const char *id;
	size_t i;

	pthread_mutex_lock(&e->lock);
	json_object_foreach(e->sandboxes, id, rec) {
		const char *exp = json_string_value(json_object_get(rec, "expiresAt"));
		const char *state = ax_record_state(rec) ?: "";
		ax_rt_handle h;
		time_t t;

		/* Starting (see create): what it started is not known yet. It
		 * expires at the next tick after it runs. */
		if (strcmp(state, "Pending") == 0)
			continue;
		if (exp && ax_time_parse_rfc3339(exp, &t) == 0 && t <= now) {
			json_array_append_new(expired, json_string(id));
			continue;
		}
		ax_record_handle(rec, &h);
		if ((strcmp(state, "Running") == 0 || strcmp(state, "Paused") == 0) && !ax_rt_alive(&h)) {
			ax_error kerr;
			char why[160];

			agent_gone(&h, why, sizeof why);
			/* Whatever is left of it (cgroups, stragglers) goes now, not at delete. */
			if (ax_rt_kill(&h, id, &kerr) < 0)
				ax_engine_log(e, "cleanup of %s: %s", id, kerr.message);
			ax_sandbox_collect(&h, 1);
			ax_egress_stop(e->egress, id);
			ax_record_set_status(rec, e, "Terminated", "SANDBOX_EXITED", why);
			ax_record_save(e, rec);
			ax_engine_log(e, "%s exited on its own: %s", id, why);
		}
	}
	for (i = 0; i < json_array_size(expired); i++) {
		id = json_string_value(json_array_get(expired, i));
		ax_engine_log(e, "%s expired", id);
		ax_sandbox_destroy(e, id, json_object_get(e->sandboxes, id));
	}
	pthread_mutex_unlock(&e->lock);
	json_decref(expired);
}

void ax_sandboxes_scan_host(ax_engine *e)
{
	char mask[sizeof e->host_mask], note[256] = "", *images;
	long long now = ax_mono_ms();
	ax_error err;

	pthread_mutex_lock(&e->lock);
	/* 60-80 ms of stat()s per scan: at the first create (not at start, which
	 * commands that create nothing wait for), until one succeeds, then only
	 * every 10 s while sandboxes are about. */
	if (e->host_mask[0] && (now - e->host_mask_ms < 10000 || !json_object_size(e->sandboxes))) {
		pthread_mutex_unlock(&e->lock);
		return;
	}
	pthread_mutex_unlock(&e->lock);
	images = ax_path_join(e->state_dir, "images");
	if (!images || ax_mkdir_p(images, 0700, &err) < 0 ||
	    ax_host_mask_get(images, mask, sizeof mask, note, sizeof note, &err) < 0) {
		ax_engine_log(e, "cannot build the host mask: %s", images ? err.message : "out of memory");
		mask[0] = '\0';
	} else if (note[0]) {
		ax_engine_log(e, "host mask: %s", note);
	}
	free(images);
	pthread_mutex_lock(&e->lock);
	/* A failed rescan keeps the last good mask. */
	if (mask[0]) {
		snprintf(e->host_mask, sizeof e->host_mask, "%s", mask);
		e->host_mask_ms = now;
	}
	pthread_mutex_unlock(&e->lock);
}

void ax_sandboxes_adopt(ax_engine *e)
{
	json_t *rec;
	const char *id;
	void *next;

	pthread_mutex_lock(&e->lock);
	json_object_foreach_safe(e->sandboxes, next, id, rec) {
		const char *state = ax_record_state(rec) ?: "";
		ax_rt_handle h;

		ax_record_handle(rec, &h);
		if (strcmp(state, "Pending") == 0) {
			/* The engine died while creating it: its client got an error and
			 * no id, so nobody can use it. Whatever got started goes (by
			 * handle if spawn finished, by cgroup otherwise), and so does
			 * its state directory. */
			ax_engine_log(e, "removing %s: the engine stopped while creating it", id);
			ax_sandbox_destroy(e, id, rec);
		} else if ((strcmp(state, "Running") == 0 || strcmp(state, "Paused") == 0) && !ax_rt_alive(&h)) {
			ax_error kerr;
			char why[160];

			if (ax_rt_kill(&h, id, &kerr) < 0)
				ax_engine_log(e, "cleanup of %s: %s", id, kerr.message);

			snprintf(why, sizeof why, "the sandbox's agent (allox-agent, pid %d) ended while the engine was down",
				 (int)h.init_pid);
			ax_record_set_status(rec, e, "Terminated", "SANDBOX_EXITED", why);
			ax_record_save(e, rec);
		} else if (strcmp(state, "Terminated") == 0) {
			ax_error kerr;

			/* Its cgroups went when it was found dead, unless that removal
			 * failed (a cgroup still busy after the wait): retry. */
			if (ax_rt_kill(&h, id, &kerr) < 0)
				ax_engine_log(e, "cleanup of %s: %s", id, kerr.message);
		} else {
			ax_error terr;

			/* An engine that died mid-capture may have left it frozen. */
			if (strcmp(state, "Running") == 0 && ax_rt_thaw(&h, id, &terr) < 0)
				ax_engine_log(e, "thaw of %s: %s", id, terr.message);
			ax_egress_adopt(e, rec);
			ax_engine_log(e, "re-adopted %s (%s)", id, state);
		}
	}
	pthread_mutex_unlock(&e->lock);
}

/* ---------- captures ---------- */

bool ax_sandbox_capturing(ax_engine *e, const char *id)
{
	return json_integer_value(json_object_get(e->capturing, id)) > 0;
}

int ax_sandbox_freeze_for_capture(ax_engine *e, const char *id, ax_error *err)
{
	json_int_t n = json_integer_value(json_object_get(e->capturing, id));
	json_t *rec = json_object_get(e->sandboxes, id);
	ax_rt_handle h;

	if (!rec)
		return ax_fail(err, AX_CODE_NOT_FOUND, "sandbox %s is gone", id);
	ax_record_handle(rec, &h);
	if (n == 0 && ax_rt_freeze(&h, id, err) < 0)
		return -1;
	json_object_set_new(e->capturing, id, json_integer(n + 1));
	return 0;
}

void ax_sandbox_thaw_after_capture(ax_engine *e, const char *id)
{
	json_int_t n = json_integer_value(json_object_get(e->capturing, id));
	json_t *rec = json_object_get(e->sandboxes, id);
	ax_rt_handle h;
	ax_error err;

	if (n > 1) {
		json_object_set_new(e->capturing, id, json_integer(n - 1));
		return;
	}
	json_object_del(e->capturing, id);
	if (!rec || strcmp(ax_record_state(rec) ?: "", "Running") != 0)
		return;
	ax_record_handle(rec, &h);
	if (ax_rt_thaw(&h, id, &err) < 0)
		ax_engine_log(e, "thaw of %s after a capture: %s", id, err.message);
}
