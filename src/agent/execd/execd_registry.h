/* Every command started through POST /command, foreground or background, by
 * id: what GET /command/status/{id}, GET /command/{id}/logs and
 * DELETE /command?id= look up.
 *
 * The registry lives as long as the agent: main.c creates it and lends it to
 * the routes through struct ag_ctx (ctx->execd); it has its own lock, and
 * each command remembers the registry it was created in. Finished commands
 * are kept for status and log polls, the oldest dropped past a fixed count. */
#ifndef ALLOX_AGENT_EXECD_REGISTRY_H
#define ALLOX_AGENT_EXECD_REGISTRY_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#define AG_CMD_ID_LEN 32

struct ag_cmd;
struct execd_registry;

struct ag_cmd_status {
	char id[AG_CMD_ID_LEN + 1];
	char *content;          /* malloc'd */
	char *error;            /* malloc'd, NULL when none */
	bool running, background, has_exit;
	int exit_code;
	struct timespec started, finished;
};

/* An empty registry, or NULL on failure. */
struct execd_registry *execd_registry_new(void);
/* Forget every listed command (NULL: nothing). Commands still referenced
 * (a background pump winding down) stay valid: the registry's memory goes
 * with the last of them. */
void execd_registry_free(struct execd_registry *reg);

/* Register a new running command in REG; the caller holds one reference. NULL on ENOMEM. */
struct ag_cmd *ag_cmd_create(struct execd_registry *reg, const char *content, bool background);
const char *ag_cmd_id(const struct ag_cmd *c);
/* Its process group, once started (interrupts need it). */
void ag_cmd_set_pid(struct ag_cmd *c, pid_t pid);
/* The combined log of a background command; the registry owns FD from now on. */
void ag_cmd_set_log(struct ag_cmd *c, int fd);
/* It ended (or never started): record the outcome and wake interrupters. */
void ag_cmd_finish(struct ag_cmd *c, int exit_code, const char *error);
/* Drop the caller's reference. */
void ag_cmd_put(struct ag_cmd *c);

/* Copy the status of ID. 0, or -1 if unknown (or ENOMEM). */
int ag_cmd_status_get(struct execd_registry *reg, const char *id, struct ag_cmd_status *st);
void ag_cmd_status_free(struct ag_cmd_status *st);

/* A new descriptor for the log of background command ID in *FD.
 * 0, -1 if unknown, -2 if it is not a background command, -3 on error. */
int ag_cmd_log_dup(struct execd_registry *reg, const char *id, int *fd);

/* SIGTERM to its process group, SIGKILL after GRACE_MS if it has not ended.
 * 0, -1 if unknown, -2 if it is not running. */
int ag_cmd_interrupt(struct execd_registry *reg, const char *id, int grace_ms);

#endif
