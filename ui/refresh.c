/*
 * The refresher: every few seconds (and right after a command) `sandbox list
 * -o json`, then `checkpoint list --all -o json`, each a child whose output
 * the loop reads through a non-blocking pipe, so input never waits for it.
 */
#include "ui/tui.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/timeutil.h"

void ax_refresh_start(ax_tui *t)
{
	int n;
	char *const *words = ax_catalog_list_words(t->refresh_stage == 0, &n);
	ax_error err;

	t->refresher.len = 0;
	if (ax_job_start(&t->sh->exec, words, n, true, NULL, &t->refresher.job, &err) < 0) {
		t->refresh_stage = 0;
		t->next_refresh = ax_mono_s() + t->refresh_interval;
		ax_set_str(&t->sh->catalog.error, err.message);
		return;
	}
	t->refresh_stage++;
}

static bool read_into(ax_pipe_reader *r)
{
	for (;;) {
		ssize_t got;

		if (r->len + 4096 + 1 > r->cap) {
			size_t cap = r->cap ? r->cap * 2 : 16384;
			char *b = realloc(r->buf, cap);

			if (!b)
				return false;
			r->buf = b;
			r->cap = cap;
		}
		got = read(r->job.fd, r->buf + r->len, 4096);
		if (got > 0) {
			r->len += (size_t)got;
			continue;
		}
		return got == 0; /* EOF: the child is done writing */
	}
}

/* The selected sandbox follows the current session when that changes. */
void ax_tui_follow_current(ax_tui *t)
{
	const char *cur = t->sh->catalog.current;
	size_t i;
	json_t *row;

	if ((cur == NULL) == (t->seen_current == NULL) && (!cur || !strcmp(cur, t->seen_current)))
		return;
	ax_set_str(&t->seen_current, cur);
	if (!cur)
		return;
	ax_set_str(&t->selected, cur);
	json_array_foreach(t->sh->catalog.sandboxes, i, row)
		if (!strcmp(json_string_value(json_object_get(row, "id")) ?: "", cur))
			t->sel_session = (int)i;
}

void ax_tui_sync_selected(ax_tui *t)
{
	const json_t *row = json_array_get(t->sh->catalog.sandboxes, (size_t)t->sel_session);
	const char *id = json_string_value(json_object_get(row, "id"));

	if (id && (!t->selected || strcmp(id, t->selected) != 0)) {
		ax_set_str(&t->selected, id);
		t->sel_checkpoint = t->top_checkpoint = 0;
	}
}

void ax_refresh_read(ax_tui *t)
{
	int status;

	if (!read_into(&t->refresher))
		return;
	ax_job_reap(&t->refresher.job, true, &status);
	t->refresher.buf[t->refresher.len] = '\0';
	ax_catalog_take(&t->sh->catalog, t->refresh_stage == 1, t->refresher.buf, status);
	if (t->refresh_stage == 1) {
		ax_refresh_start(t);
		return;
	}
	t->refresh_stage = 0;
	ax_catalog_read_session(&t->sh->catalog, t->sh->ctx->home);
	ax_tui_follow_current(t);
	if (!t->selected || !t->sh->catalog.current || strcmp(t->selected, t->sh->catalog.current) != 0)
		ax_tui_sync_selected(t);
	t->next_refresh = ax_mono_s() + t->refresh_interval;
}
