/* Helpers shared by command handlers. */
#ifndef ALLOX_CMD_COMMON_H
#define ALLOX_CMD_COMMON_H

#include "cmd/command.h"
#include "api/lifecycle.h"

/* Positionals several groups' verbs take: [SANDBOX_ID]; [SANDBOX_ID] PATH
 * (a path inside the sandbox); COMMAND... (run, aio exec). */
extern const ax_positional_spec ax_sandbox_id_positionals[];
extern const ax_positional_spec ax_path_positionals[];
extern const ax_positional_spec ax_command_positionals[];

/* GIVEN if non-NULL, else the current session's sandbox; malloc'd. No
 * session: exit 1 with the hint to create or use one. */
char *ax_resolve_sandbox(ax_ctx *ctx, const char *given, ax_error *err);

/* Open the lifecycle connection from ctx->config. */
int ax_open_lifecycle(ax_ctx *ctx, ax_lifecycle *lc, ax_error *err);

/* "http://host:port" of the AIO runtime for ID, or NULL (never an error). */
char *ax_aio_url_or_null(ax_lifecycle *lc, const ax_config *cfg, const char *id);

/* Split the COMMAND words of run/aio exec: a leading UUID is the sandbox
 * (*ID points at it, else NULL); *WORDS is a malloc'd array of the rest
 * (free it, not its strings). No command words is a usage error. */
int ax_split_target(const ax_args *args, const char **id, const char ***words, size_t *n, ax_error *err);

/* Wait until sandbox ID's runtime answers its health check (defaults.aio_port,
 * aio_health_path), up to TIMEOUT_S. Returns the seconds it took (and the AIO
 * URL in *URL_OUT if non-NULL, malloc'd), or -1 with ERR. */
double ax_wait_ready(ax_ctx *ctx, ax_lifecycle *lc, const char *id, long long timeout_s, char **url_out,
		     ax_error *err);

/* The readiness timeout: FLAG (a duration) if given, else defaults.ready_timeout. */
int ax_ready_timeout(ax_ctx *ctx, const char *flag, long long *secs, ax_error *err);

/* The create request for `sandbox create` ARGS (image, timeout, env,
 * metadata, entrypoint), or for restoring SNAPSHOT_ID when non-NULL. */
json_t *ax_sandbox_request(ax_ctx *ctx, const ax_args *args, bool local, const char *snapshot_id, ax_error *err);

/* POST REQ, wait until the runtime answers (READY_FLAG or
 * defaults.ready_timeout; not with SKIP or defaults.skip_health_check),
 * delete it if it never does, and make it the current session.
 * *LAUNCHED = {id, aio_url, aio_ready_seconds?}. */
int ax_sandbox_launch(ax_ctx *ctx, ax_lifecycle *lc, const json_t *req, const char *ready_flag, bool skip,
		      json_t **launched, ax_error *err);
/* A UUID as the original detects sandbox ids among command words. */
bool ax_looks_like_uuid(const char *s);

#endif
