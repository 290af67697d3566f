/* Sandboxes as the engine's domain: what the lifecycle API's /sandboxes
 * routes do, with no HTTP in sight. Each operation takes e->lock itself and
 * returns data (a JSON value in the spec's shape, which the caller owns) or
 * fails with a wire code (wire_error.h). */
#ifndef ALLOX_ENGINE_SANDBOX_H
#define ALLOX_ENGINE_SANDBOX_H

#include <stdbool.h>
#include <jansson.h>

#include "engine/engine.h"
#include "engine/runtime/runtime.h"

/* A page of a listing: 1-based page number, items per page. */
typedef struct ax_page {
	long page;
	long size;
} ax_page;

/* POST /sandboxes: BODY is the create request; the new sandbox (202's body). */
json_t *ax_sandbox_create(ax_engine *e, const json_t *body, ax_error *err);
/* GET /sandboxes: those in one of STATES (NULL: any) whose metadata has every
 * pair of METADATA ("k=v&k2=v2", NULL: any). */
json_t *ax_sandbox_list(ax_engine *e, const json_t *states, const char *metadata, const ax_page *page, ax_error *err);
json_t *ax_sandbox_get(ax_engine *e, const char *id, ax_error *err);
/* Gone once this returns, even if it was starting. */
int ax_sandbox_delete(ax_engine *e, const char *id, ax_error *err);
/* PAUSE true: pause a Running sandbox; false: resume a Paused one. */
int ax_sandbox_pause(ax_engine *e, const char *id, bool pause, ax_error *err);
/* BODY {"expiresAt": ...}; {"expiresAt": <the new expiry>}. */
json_t *ax_sandbox_renew(ax_engine *e, const char *id, const json_t *body, ax_error *err);
/* An RFC 7396 merge PATCH of its metadata; the sandbox after it. */
json_t *ax_sandbox_patch_metadata(ax_engine *e, const char *id, const json_t *patch, ax_error *err);

/* Listings (lock held): room for a selection out of RECORDS, NULL with ERR;
 * then page PAGE of the N records in SEL, newest first, each shown through
 * SHOW, with the pagination block. */
json_t **ax_select_begin(const json_t *records, ax_error *err);
json_t *ax_page_json(json_t **sel, size_t n, const ax_page *page, json_t *(*show)(void *arg, const json_t *rec),
		     void *arg);

/* ---- sandbox records, shared by the sandbox_*.c files (lock held) ---- */
void ax_record_set_status(json_t *rec, ax_engine *e, const char *state, const char *reason, const char *message);
const char *ax_record_state(const json_t *rec);
void ax_record_handle(const json_t *rec, ax_rt_handle *h);
/* The record as the API shows it (see ax_add_entrypoint_status). */
json_t *ax_record_view(const json_t *rec, bool created);
/* Save REC, logging a failure (the answer does not depend on it). */
void ax_record_save(ax_engine *e, json_t *rec);
/* Sandbox ID's record, or NULL with SANDBOX::NOT_FOUND in ERR. */
json_t *ax_sandbox_find(ax_engine *e, const char *id, ax_error *err);
/* Its record once it is no longer Pending, or NULL when it went. */
json_t *ax_sandbox_settled(ax_engine *e, const char *id);
/* Add what the entrypoint did to V, a view; without the lock. */
void ax_add_entrypoint_status(ax_engine *e, json_t *v);
/* Collect the sandbox's processes (the engine is their subreaper). */
void ax_sandbox_collect(const ax_rt_handle *h, int tries);
/* End sandbox ID, remove its state and record. */
void ax_sandbox_destroy(ax_engine *e, const char *id, json_t *rec);
int ax_claim_uids(ax_engine *e, json_t *rec, const char *dir, ax_error *err);
void ax_release_uids(ax_engine *e, const json_t *rec, const char *dir);
/* Start the runtime for REC, a reserved record's private copy (without the
 * lock); its runtime block, or NULL with ERR. */
json_t *ax_sandbox_spawn(ax_engine *e, const json_t *rec, ax_error *err);
/* The limits a new sandbox gets (the request's, else the engine's defaults). */
json_t *ax_effective_limits(const ax_engine *e, const json_t *given);
int ax_random_hex(char *out, size_t bytes);

#endif
