/* Checkpoints as the client sees them: server snapshots, taken and read
 * through the lifecycle API, so the same code serves the embedded engine and
 * a real OpenSandbox server. Shared by the checkpoint verbs, the automatic
 * checkpoints after successful operations, and the interactive shell. */
#ifndef ALLOX_CMD_CHECKPOINT_H
#define ALLOX_CMD_CHECKPOINT_H

#include <jansson.h>

#include "cmd/command.h"
#include "api/lifecycle.h"

/* The client's object for a server Snapshot:
 * {id, sandbox_id, name, state, reason, message, created_at}. */
json_t *ax_checkpoint_object(const json_t *snapshot);

/* Create a checkpoint of SANDBOX_ID named NAME (may be NULL) and wait until it
 * is Ready (checkpoint.create_timeout). Returns the object above plus
 * size_bytes (null when the server does not say) and seconds, or NULL with
 * ERR. Stops waiting early (ERR code "INTERRUPTED") once *ctx->interrupted
 * is set. */
json_t *ax_checkpoint_take(ax_ctx *ctx, ax_lifecycle *lc, const char *sandbox_id, const char *name, ax_error *err);

/* "/snapshots/<escaped id>"; malloc'd, NULL on ENOMEM. */
char *ax_checkpoint_path(const char *id);

/* Every snapshot (all pages), of SANDBOX_ID only when non-NULL; a new array
 * of server Snapshot objects. */
json_t *ax_checkpoint_list_all(ax_lifecycle *lc, const char *sandbox_id, ax_error *err);

/* The id of SANDBOX_ID's newest Ready checkpoint (malloc'd), or NULL with ERR. */
char *ax_checkpoint_latest(ax_lifecycle *lc, const char *sandbox_id, ax_error *err);

#endif
