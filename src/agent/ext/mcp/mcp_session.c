#include "agent/ext/mcp/mcp_session.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "lib/timeutil.h"

#define MAX_SESSIONS 64
#define IDLE_SECONDS (60 * 60)

struct entry {
	char id[MCP_SESSION_ID_LEN + 1];   /* "" when free */
	char version[MCP_VERSION_LEN];
	time_t last;
};

struct mcp_sessions {
	pthread_mutex_t lock;
	struct entry e[MAX_SESSIONS];
};

static time_t now(void)
{
	return (time_t)(ax_mono_ms() / 1000);
}

struct mcp_sessions *mcp_sessions_new(void)
{
	struct mcp_sessions *s = calloc(1, sizeof *s);

	if (s)
		pthread_mutex_init(&s->lock, NULL);
	return s;
}

void mcp_sessions_free(struct mcp_sessions *s)
{
	if (!s)
		return;
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* A free slot: an empty or expired one, else the least recently used. */
static struct entry *slot(struct mcp_sessions *s)
{
	struct entry *oldest = &s->e[0];
	size_t i;

	for (i = 0; i < MAX_SESSIONS; i++) {
		if (!s->e[i].id[0] || now() - s->e[i].last > IDLE_SECONDS)
			return &s->e[i];
		if (s->e[i].last < oldest->last)
			oldest = &s->e[i];
	}
	return oldest;
}

int mcp_session_create(struct mcp_sessions *s, const char *version, char id[MCP_SESSION_ID_LEN + 1])
{
	unsigned char raw[MCP_SESSION_ID_LEN / 2];
	struct entry *e;
	size_t i;

	if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
		return -1;
	for (i = 0; i < sizeof raw; i++)
		snprintf(id + 2 * i, 3, "%02x", raw[i]);
	pthread_mutex_lock(&s->lock);
	e = slot(s);
	memcpy(e->id, id, MCP_SESSION_ID_LEN + 1);
	snprintf(e->version, sizeof e->version, "%s", version);
	e->last = now();
	pthread_mutex_unlock(&s->lock);
	return 0;
}

static struct entry *lookup(struct mcp_sessions *s, const char *id)
{
	size_t i;

	if (!id || strlen(id) != MCP_SESSION_ID_LEN)
		return NULL;
	for (i = 0; i < MAX_SESSIONS; i++)
		if (s->e[i].id[0] && strcmp(s->e[i].id, id) == 0 && now() - s->e[i].last <= IDLE_SECONDS)
			return &s->e[i];
	return NULL;
}

int mcp_session_touch(struct mcp_sessions *s, const char *id, char version[MCP_VERSION_LEN])
{
	struct entry *e;
	int rc = -1;

	pthread_mutex_lock(&s->lock);
	e = lookup(s, id);
	if (e) {
		e->last = now();
		memcpy(version, e->version, MCP_VERSION_LEN);
		rc = 0;
	}
	pthread_mutex_unlock(&s->lock);
	return rc;
}

int mcp_session_delete(struct mcp_sessions *s, const char *id)
{
	struct entry *e;
	int rc = -1;

	pthread_mutex_lock(&s->lock);
	e = lookup(s, id);
	if (e) {
		memset(e, 0, sizeof *e);
		rc = 0;
	}
	pthread_mutex_unlock(&s->lock);
	return rc;
}
