/* Shell sessions as /v1/shell/exec leaves them: an id, its working directory
 * and its latest command. Every exec is a fresh /bin/sh, so a session keeps
 * no shell state (cd in a command, variables) from one command to the next,
 * only the directory the last exec ran in; it exists so a client can come
 * back to a command that is still running (view, wait, kill) and so the
 * sessions can be listed.
 *
 * Sessions outlive the request that made them by design, so the registry
 * lives as long as the agent: main.c creates it and lends it to the routes
 * through struct ag_ctx (ctx->aio_sessions); it has its own lock. It is
 * small and bounded: past AIO_SESSIONS_MAX the least recently used session
 * is forgotten (finished ones first); its command, if still running, goes
 * on regardless. */
#ifndef ALLOX_AGENT_AIO_SESSION_H
#define ALLOX_AGENT_AIO_SESSION_H

#include <jansson.h>
#include <stddef.h>

#include "agent/aio/aio_run.h"

#define AIO_SESSIONS_MAX 16
#define AIO_SESSION_ID_MAX 128

struct aio_sessions;

/* An empty registry, or NULL on ENOMEM. */
struct aio_sessions *aio_sessions_new(void);
/* Free REG and drop its references to the runs (NULL: nothing). */
void aio_sessions_free(struct aio_sessions *reg);

/* A new session id: a random UUID. */
void aio_session_new_id(char id[37]);

/* Make RUN the latest command of session ID (created if new). */
void aio_session_put(struct aio_sessions *reg, const char *id, struct aio_run *run);

/* Session ID's latest command (a new reference) or NULL if unknown. */
struct aio_run *aio_session_get(struct aio_sessions *reg, const char *id);

/* The ActiveShellSessionsResult object {"sessions": {ID: {...}}}. */
json_t *aio_shell_sessions(struct aio_sessions *reg);

#endif
