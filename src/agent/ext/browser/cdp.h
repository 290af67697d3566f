/* A CDP client: one WebSocket to Chromium's DevTools endpoint (libwebsockets),
 * commands with request ids answered in order of arrival, a bounded wait for
 * each, and events kept only while someone records them.
 *
 * Not thread-safe: one thread at a time drives a connection (the browser
 * module serialises its calls). Every wait is bounded. */
#ifndef ALLOX_AGENT_CDP_H
#define ALLOX_AGENT_CDP_H

#include <jansson.h>
#include <stdbool.h>

struct cdp;

enum cdp_status {
	CDP_OK = 0,
	CDP_FAILED = -1,    /* the connection failed or closed */
	CDP_TIMEOUT = -2,   /* no answer in time */
	CDP_REMOTE = -3,    /* Chromium answered with an error object */
};

struct cdp_error {
	enum cdp_status status;
	long long code;     /* CDP_REMOTE: the error's code (-32601 unknown method...) */
	char message[400];
};

/* Connect to ws://HOST:PORT/PATH (loopback DevTools: no TLS, no Origin, no
 * compression) within TIMEOUT_MS. NULL with ERR on failure. */
struct cdp *cdp_open(const char *host, int port, const char *path, int timeout_ms, struct cdp_error *err);
void cdp_close(struct cdp *c);

/* Is the WebSocket still open? */
bool cdp_alive(const struct cdp *c);

/* Send METHOD with PARAMS (borrowed; NULL: {}) to SESSION (NULL: the target
 * the socket belongs to) and wait up to TIMEOUT_MS for its answer. CDP_OK
 * with *RESULT (new reference; RESULT may be NULL), or a status with ERR. */
int cdp_call(struct cdp *c, const char *session, const char *method, const json_t *params, int timeout_ms,
	     json_t **result, struct cdp_error *err);

/* Every event is also shown to FN (if set), as it arrives, whatever is
 * being waited for; when FN returns true the current wait ends at once with
 * CDP_FAILED and FN's REASON (e.g. the page crashed: its answers will never
 * come). */
typedef bool (*cdp_event_fn)(const char *method, const char *session, const json_t *params, void *arg,
			     const char **reason);
void cdp_on_event(struct cdp *c, cdp_event_fn fn, void *arg);

/* Events: from cdp_record(c, true) on, events arrive in a bounded queue
 * (the oldest are dropped past it); cdp_record(c, false) empties it. */
void cdp_record(struct cdp *c, bool on);
bool cdp_recording(const struct cdp *c);

/* Wait up to TIMEOUT_MS for a recorded event for which MATCH (METHOD,
 * SESSION, PARAMS, ARG) is true; earlier events are consumed. CDP_OK with
 * *PARAMS set (new reference; may be NULL) or a status with ERR. */
typedef bool (*cdp_match_fn)(const char *method, const char *session, const json_t *params, void *arg);
int cdp_wait_event(struct cdp *c, cdp_match_fn match, void *arg, int timeout_ms, json_t **params,
		   struct cdp_error *err);

#endif
