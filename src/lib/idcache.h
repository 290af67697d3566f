/*
 * The id cache behind shell completion: $ALLOX_HOME/cache/ids.json remembers
 * the sandbox and checkpoint ids the last commands saw, so `allox-cli
 * __complete` can answer in milliseconds without a server round trip (and
 * without starting the engine).
 *
 *   {"version": 1, "domain": "local",
 *    "sandboxes_at": 1733212345, "checkpoints_at": 1733212345,
 *    "sandboxes": [{"id": "...", "state": "Running"}],
 *    "checkpoints": [{"id": "...", "name": "v1", "sandbox_id": "..."}]}
 *
 * *_at is when that list was last replaced by a complete listing (not by a
 * single create or delete): it decides whether the list is stale. The
 * cache belongs to one server (domain); a command against another server
 * starts it afresh rather than mixing ids.
 *
 * Single creates and deletes are not worth rewriting the whole file for
 * (with hundreds of checkpoints that was milliseconds of every `checkpoint
 * create`): they are appended to the journal $ALLOX_HOME/cache/ids.log, one
 * JSON edit per line, and ax_idcache_load replays it over ids.json. Saving
 * the whole cache (after a listing, or once the journal outgrows
 * AX_IDCACHE_JOURNAL_MAX) empties the journal. It is a cache: ids.json is
 * replaced atomically, a torn journal line is skipped, and concurrent
 * writers may lose an update, which the next listing repairs.
 */
#ifndef ALLOX_IDCACHE_H
#define ALLOX_IDCACHE_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <jansson.h>

#include "lib/ax_error.h"

typedef enum ax_idkind {
	AX_ID_SANDBOX,
	AX_ID_CHECKPOINT,
} ax_idkind;

/* A new empty cache for DOMAIN. */
json_t *ax_idcache_new(const char *domain);

/* Read HOME/cache/ids.json; a missing, unreadable or malformed file is an
 * empty cache for DOMAIN (so is one written for another domain when DOMAIN
 * is non-NULL). Returns a new reference; NULL only when out of memory. */
json_t *ax_idcache_load(const char *home, const char *domain);

/* Replace HOME/cache/ids.json atomically (mode 0600, directory 0700) and
 * empty the journal, whose edits CACHE holds. */
int ax_idcache_save(const char *home, const json_t *cache, ax_error *err);

/* The journal's size past which an append saves the whole cache instead. */
#define AX_IDCACHE_JOURNAL_MAX 65536

/* One edit, as a journal line: EDIT is {"op": OP, ...} with OP one of
 * put_sandbox (id, state), remove_sandbox (id), put_checkpoint (id, name,
 * sandbox_id), remove_checkpoint (id). Appended for DOMAIN to
 * HOME/cache/ids.log without reading the cache. */
int ax_idcache_append(const char *home, const char *domain, const json_t *edit, ax_error *err);

/* Apply one journal EDIT to CACHE; false when it is not a known edit. */
bool ax_idcache_apply(json_t *cache, const json_t *edit);

/* A complete listing of every sandbox: rows with "id" and "state". */
void ax_idcache_set_sandboxes(json_t *cache, const json_t *rows, time_t now);

/* Insert or update one sandbox; STATE may be NULL (kept if known). */
void ax_idcache_put_sandbox(json_t *cache, const char *id, const char *state);
void ax_idcache_remove_sandbox(json_t *cache, const char *id);

/* A listing of checkpoints (rows with "id", "name", "sandbox_id"). With
 * SANDBOX_ID NULL it is every checkpoint and renews checkpoints_at; else it
 * replaces only that sandbox's checkpoints. */
void ax_idcache_set_checkpoints(json_t *cache, const json_t *rows, const char *sandbox_id, time_t now);
void ax_idcache_put_checkpoint(json_t *cache, const char *id, const char *name, const char *sandbox_id);
void ax_idcache_remove_checkpoint(json_t *cache, const char *id);

/* Whether KIND's list is missing or older than MAX_AGE seconds. */
bool ax_idcache_stale(const json_t *cache, ax_idkind kind, time_t now, long max_age);

/* Print the ids of KIND that start with PREFIX (NULL: all), one per line
 * as "ID<TAB>description"; returns how many. */
size_t ax_idcache_print(FILE *out, const json_t *cache, ax_idkind kind, const char *prefix);

#endif
