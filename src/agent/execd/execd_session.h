/* Bash sessions (POST /session, POST /session/{id}/run, DELETE
 * /session/{id}): one long-lived bash per session, so everything a run
 * changes in the shell (working directory, variables exported or not,
 * functions, aliases) is there for the next run.
 *
 * The agent writes each run to the shell's stdin as "SEQ\0CWD\0COMMAND\0";
 * the shell evals COMMAND (stdin /dev/null) and answers "SEQ STATUS\n" on a
 * status pipe (fd 3, closed for the command), so output needs no in-band
 * markers and an answer for a run nobody waits for any more is told apart.
 *
 * The registry lives as long as the agent: main.c creates it and lends it
 * to the routes through struct ag_ctx (ctx->sessions); it has its own lock.
 * A session is reference-counted: a run holds one while it streams. */
#ifndef ALLOX_AGENT_EXECD_SESSION_H
#define ALLOX_AGENT_EXECD_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "lib/ax_error.h"
#include "agent/core/route.h"

#define AG_SESSION_ID_LEN 36

struct execd_sessions;

struct ag_bash {
	char id[AG_SESSION_ID_LEN + 1];
	pid_t pid;              /* the shell, leader of its process group */
	int pidfd;              /* readable once the shell has exited */
	int in_fd;              /* the shell's stdin: runs go here */
	int out_fd, err_fd;     /* its stdout and stderr (non-blocking) */
	int status_fd;          /* "SEQ STATUS\n" per run (non-blocking) */
	uint64_t seq;           /* the latest run's number */
	bool context;           /* a /code bash context (execd_code.h); set once */
	/* Under the registry's lock: */
	int refs;
	bool busy;              /* a run is streaming */
	bool gone;              /* deleted, or the shell exited */
	struct ag_bash *next;
};

struct execd_sessions *execd_sessions_new(void);
/* Kill every shell and free REG (NULL: nothing); REAPER collects them (NULL: nobody). */
void execd_sessions_free(struct execd_sessions *reg, struct ag_reaper *reaper);

/* Start a session's bash in CWD (NULL: $HOME); its id in ID. CONTEXT: a
 * /code bash context, listed by ag_bash_contexts. */
int ag_bash_create(const struct ag_ctx *ctx, const char *cwd, bool context, char id[AG_SESSION_ID_LEN + 1],
		   ax_error *err);

/* Session ID marked busy, with a reference for the caller: NULL and
 * *BUSY false when there is no such session, *BUSY true when a run is
 * streaming in it already. */
struct ag_bash *ag_bash_begin(struct execd_sessions *reg, const char *id, bool *busy);
/* The run is over: not busy any more, and the reference dropped. */
void ag_bash_end(struct execd_sessions *reg, struct ag_bash *s);

/* The shell has exited by itself (exit in a command): forget the session. */
void ag_bash_lost(struct execd_sessions *reg, struct ag_bash *s);

/* Remove session ID and kill its shell. 0, or -1 when there is none. */
int ag_bash_delete(const struct ag_ctx *ctx, const char *id);

/* Is ID a /code bash context? */
bool ag_bash_is_context(struct execd_sessions *reg, const char *id);
/* [{id, language: "bash"}] of every /code bash context; NULL on ENOMEM. */
json_t *ag_bash_contexts(struct execd_sessions *reg);
/* The id of the default bash context in ID, started on first use. */
int ag_bash_default_context(const struct ag_ctx *ctx, char id[AG_SESSION_ID_LEN + 1], ax_error *err);
/* Delete every /code bash context. */
void ag_bash_delete_contexts(const struct ag_ctx *ctx);
/* Interrupt the code running in context ID (SIGINT to the shell's group,
 * which the driver turns into the end of that run only). 0, or -1 when
 * there is no such context. */
int ag_bash_interrupt(struct execd_sessions *reg, const char *id);

/* Stream a run of COMMAND in the busy session S (ag_bash_begin's
 * reference is taken over). CODE: a /code run (execd_code.h), which
 * interrupts end and reports as the official execd's bash kernel does;
 * else a session run (execd_session_routes.h). TIMEOUT_MS 0: none. */
enum MHD_Result ag_bash_stream(struct ag_req *req, struct ag_bash *s, const char *cwd, const char *command,
			       int64_t timeout_ms, bool code);

/* SIGKILL every process the shell has started (its descendants), not
 * the shell itself. */
void ag_bash_kill_runs(const struct ag_bash *s);

#endif
