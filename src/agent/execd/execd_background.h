/* Background commands (POST /command with background=true): stdout and
 * stderr go to one combined log, kept in an unlinked temporary file so a
 * chatty command costs disk, not agent memory; a small thread per command
 * copies the output there and records the exit. */
#ifndef ALLOX_AGENT_EXECD_BACKGROUND_H
#define ALLOX_AGENT_EXECD_BACKGROUND_H

#include <stdint.h>

#include "lib/ax_error.h"
#include "agent/execd/execd_registry.h"
#include "agent/core/proc_spawn.h"

/* Start COMMAND in the background as CMD (TIMEOUT_MS 0: none), as IDENT
 * (NULL: the agent's own identity). On success the caller's reference to
 * CMD passes to the thread, which owns the process from then on; on
 * failure the caller keeps it. */
int ag_background_start(const struct ag_ctx *ctx, struct ag_cmd *cmd, const char *command, const char *cwd,
			const char *const *env, const struct ag_ident *ident, int64_t timeout_ms, ax_error *err);

#endif
