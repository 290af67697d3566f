/*
 * The current session: $ALLOX_HOME/sessions.json, {"current": {sandbox_id,
 * aio_url, created_at}}, the same file and shape the original tool used.
 * Every read-modify-write holds an exclusive flock on sessions.json.lock and
 * replaces the file atomically, so concurrent invocations never corrupt it
 * and the last writer wins.
 */
#ifndef ALLOX_SESSION_H
#define ALLOX_SESSION_H

#include <stdbool.h>
#include <jansson.h>

#include "lib/ax_error.h"

typedef struct ax_session {
	char *sandbox_id;
	char *aio_url;
	char *created_at;
} ax_session;

void ax_session_free(ax_session *s);

/* Read the current session. *FOUND is false for a missing/unreadable/invalid
 * file or an incomplete "current" entry (that is not an error). */
int ax_session_get(const char *home, ax_session *s, bool *found, ax_error *err);

/* Make SANDBOX_ID current (created_at = now); other top-level keys survive. */
int ax_session_set(const char *home, const char *sandbox_id, const char *aio_url,
		   ax_session *out, ax_error *err);

/* Remove the current session; if ONLY_ID is non-NULL only when it is that
 * sandbox. *CLEARED tells whether anything was removed. */
int ax_session_clear(const char *home, const char *only_id, bool *cleared, ax_error *err);

/* The session as an ordered JSON object {sandbox_id, aio_url, created_at}. */
json_t *ax_session_to_json(const ax_session *s);

#endif
