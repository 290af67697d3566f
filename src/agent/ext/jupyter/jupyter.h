/* src/agent/ext/jupyter/jupyter.h — kernels by session.
 * Contract between the jupyter helper (implements it) and the MCP helper (uses it). */
#ifndef ALLOX_AGENT_JUPYTER_H
#define ALLOX_AGENT_JUPYTER_H

#include <jansson.h>
#include <stdbool.h>

#include "agent/core/ag_error.h"

struct ag_jupyter;

/* Failures fill a struct ag_error with status 400 bad input, 404 unknown
 * kernel/session, 503 no kernel available, or 500. */

struct ag_jupyter *ag_jupyter_new(void);     /* cheap: starts nothing */
void ag_jupyter_free(struct ag_jupyter *j);  /* shuts every kernel down */

/* Run CODE in SESSION_ID's kernel (NULL: the default session), starting the kernel
 * (KERNEL_NAME, NULL: python3) on first use; TIMEOUT_S <= 0: the default.
 * *RESULT is the route's `data` object: {kernel_name, session_id, status (ok|error|timeout),
 * execution_count, outputs[...], code, msg_id}. Returns 0 (also for status error/timeout)
 * or -1 with ERR filled. Thread-safe; calls on one session are queued. */
int ag_jupyter_execute(struct ag_jupyter *j, const char *code, const char *kernel_name,
		       const char *session_id, double timeout_s, json_t **result,
		       struct ag_error *err);

/* Additions beyond the contract, for the routes and main.c. */

struct ag_reaper;

/* Kernels are children of the agent: they are forked with REAPER locked and
 * watched by it (see reaper.h). Set it before the first call; without one no
 * kernel can start (503). */
void ag_jupyter_set_reaper(struct ag_jupyter *j, struct ag_reaper *reaper);

/* ag_jupyter_execute with the working directory a new kernel starts in
 * (CWD NULL: $HOME); an existing kernel keeps its own. */
int ag_jupyter_execute_in(struct ag_jupyter *j, const char *code, const char *kernel_name,
			  const char *session_id, const char *cwd, double timeout_s, json_t **result,
			  struct ag_error *err);

/* ag_jupyter_execute_in for an HTTP client on socket CLIENT_FD (-1: none):
 * when that client hangs up, the running code is interrupted. */
int ag_jupyter_execute_for(struct ag_jupyter *j, const char *code, const char *kernel_name,
			   const char *session_id, const char *cwd, double timeout_s, int client_fd,
			   json_t **result, struct ag_error *err);

/* Create session SESSION_ID (NULL: a new UUID) and start its kernel now.
 * *RESULT is {session_id, kernel_name, message}; an existing session with
 * the same kernel is no error. */
int ag_jupyter_create(struct ag_jupyter *j, const char *session_id, const char *kernel_name, const char *cwd,
		      json_t **result, struct ag_error *err);

/* Shut SESSION_ID's kernel down and forget the session (404 if unknown). A
 * call running in it ends with its kernel; calls waiting for it get 404. */
int ag_jupyter_delete(struct ag_jupyter *j, const char *session_id, struct ag_error *err);
/* The same for every session; returns how many there were. */
int ag_jupyter_delete_all(struct ag_jupyter *j);

/* The execd API's code contexts (code_routes.c): sessions seen by the
 * language of their kernel, kept until deleted (never idle-expired). */
struct jsession;
struct jx_watch;

/* A new context (a UUID) for LANGUAGE, its kernel started now in CWD (NULL:
 * $HOME). *RESULT is {id, language}. 404 when no kernel speaks LANGUAGE. */
int ag_jupyter_context_create(struct ag_jupyter *j, const char *language, const char *cwd, json_t **result,
			      struct ag_error *err);
/* [{id, language}] of every session, or of those whose kernel speaks LANGUAGE. */
json_t *ag_jupyter_contexts(struct ag_jupyter *j, const char *language);
/* {id, language} of session ID (404 if unknown). */
int ag_jupyter_context_get(struct ag_jupyter *j, const char *id, json_t **result, struct ag_error *err);
/* Delete every session whose kernel speaks LANGUAGE (NULL: every session);
 * how many there were. */
int ag_jupyter_delete_language(struct ag_jupyter *j, const char *language);
/* Interrupt the code running in session ID, if any (404 if unknown). */
int ag_jupyter_interrupt(struct ag_jupyter *j, const char *id, struct ag_error *err);

/* Session ID, or when ID is NULL the default context of LANGUAGE (made on
 * first use; its kernel starts with its first run), with a reference for
 * the caller, who passes it to ag_jupyter_context_run and then to
 * ag_jupyter_context_close. NULL with ERR (404 unknown id or language). */
struct jsession *ag_jupyter_context_open(struct ag_jupyter *j, const char *id, const char *language, bool *created,
					 struct ag_error *err);
const char *ag_jupyter_context_id(const struct jsession *s);
/* Run CODE in S when its turn comes, watching W, starting its kernel if
 * need be. *RESULT as for ag_jupyter_execute. */
int ag_jupyter_context_run(struct ag_jupyter *j, struct jsession *s, const char *code, const struct jx_watch *w,
			   json_t **result, struct ag_error *err);
/* Drop the reference of ag_jupyter_context_open; FAILED: its run failed. */
void ag_jupyter_context_close(struct ag_jupyter *j, struct jsession *s, bool created, bool failed);

/* {sessions: {ID: {kernel_name, last_used (epoch seconds), age_seconds}}}. */
json_t *ag_jupyter_sessions(struct ag_jupyter *j);

/* GET /v1/jupyter/info's data: {default_kernel, available_kernels[],
 * active_sessions, session_timeout_seconds, max_sessions, description,
 * kernel_detection}. */
json_t *ag_jupyter_info(struct ag_jupyter *j);

#endif
