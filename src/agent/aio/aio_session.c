#include "agent/aio/aio_session.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/timeutil.h"

struct session {
	char id[AIO_SESSION_ID_MAX + 1];
	time_t created, used;
	struct aio_run *run;
};

struct aio_sessions {
	pthread_mutex_t lock;
	struct session v[AIO_SESSIONS_MAX];
	size_t n;
};

struct aio_sessions *aio_sessions_new(void)
{
	struct aio_sessions *reg = calloc(1, sizeof *reg);

	if (reg && pthread_mutex_init(&reg->lock, NULL) != 0) {
		free(reg);
		reg = NULL;
	}
	return reg;
}

void aio_sessions_free(struct aio_sessions *reg)
{
	size_t i;

	if (!reg)
		return;
	for (i = 0; i < reg->n; i++)
		aio_run_unref(reg->v[i].run);
	pthread_mutex_destroy(&reg->lock);
	free(reg);
}

static struct session *find(struct aio_sessions *reg, const char *id)
{
	size_t i;

	for (i = 0; i < reg->n; i++)
		if (strcmp(reg->v[i].id, id) == 0)
			return &reg->v[i];
	return NULL;
}

/* The slot to reuse when full: the least recently used finished session,
 * else the least recently used of all. */
static struct session *victim(struct aio_sessions *reg)
{
	struct session *best = NULL, *s;
	size_t i;
	int pass;

	for (pass = 0; pass < 2 && !best; pass++)
		for (i = 0; i < reg->n; i++) {
			s = &reg->v[i];
			if (pass == 0 && !aio_run_ended(s->run))
				continue;
			if (!best || s->used < best->used)
				best = s;
		}
	return best;
}

void aio_session_put(struct aio_sessions *reg, const char *id, struct aio_run *run)
{
	struct aio_run *old = NULL;
	struct session *s;
	time_t t = time(NULL);

	aio_run_ref(run);
	pthread_mutex_lock(&reg->lock);
	s = find(reg, id);
	if (!s) {
		/* A fresh slot's run is NULL; a reused one's is dropped below. */
		s = reg->n < AIO_SESSIONS_MAX ? &reg->v[reg->n++] : victim(reg);
		snprintf(s->id, sizeof s->id, "%s", id);
		s->created = t;
	}
	old = s->run;
	s->run = run;
	s->used = t;
	pthread_mutex_unlock(&reg->lock);
	aio_run_unref(old);
}

struct aio_run *aio_session_get(struct aio_sessions *reg, const char *id)
{
	struct aio_run *run = NULL;
	struct session *s;

	pthread_mutex_lock(&reg->lock);
	s = find(reg, id);
	if (s) {
		run = s->run;
		aio_run_ref(run);
		s->used = time(NULL);
	}
	pthread_mutex_unlock(&reg->lock);
	return run;
}

json_t *aio_shell_sessions(struct aio_sessions *reg)
{
	json_t *map = json_object();
	char created[32], used[32];
	time_t t = time(NULL);
	struct session *s;
	bool live;
	size_t i;

	pthread_mutex_lock(&reg->lock);
	for (i = 0; i < reg->n; i++) {
		s = &reg->v[i];
		live = !aio_run_ended(s->run);
		ax_time_iso_offset(s->created, created);
		ax_time_iso_offset(s->used, used);
		json_object_set_new(map, s->id,
				    json_pack("{s:s,s:s,s:s,s:I,s:s,s:o}", "working_dir", aio_run_cwd(s->run),
					      "created_at", created, "last_used_at", used, "age_seconds",
					      (json_int_t)(t - s->created), "status", live ? "active" : "idle",
					      "current_command",
					      live ? json_string(aio_run_command(s->run)) : json_null()));
	}
	pthread_mutex_unlock(&reg->lock);
	return json_pack("{s:o}", "sessions", map);
}
