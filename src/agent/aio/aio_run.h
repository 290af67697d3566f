/* One command started by /v1/shell/exec.
 *
 * A pump thread owns the process from start to end: it reads the combined
 * stdout+stderr as it comes (so a chatty command never blocks on a full
 * pipe), enforces hard_timeout by killing the process group, and reaps it.
 * The request that started it only waits, for as long as its soft timeout
 * allows, and may answer "running" while the pump goes on. The session
 * registry keeps a reference so later requests can look at it. */
#ifndef ALLOX_AGENT_AIO_RUN_H
#define ALLOX_AGENT_AIO_RUN_H

#include <stdbool.h>
#include <time.h>

#include "lib/ax_error.h"
#include "agent/core/route.h"

/* The AIO BashCommandStatus values a run can be in. */
enum aio_status {
	AIO_RUNNING,
	AIO_COMPLETED,
	AIO_NO_CHANGE_TIMEOUT,  /* only ever an answer, never a run's own state */
	AIO_HARD_TIMEOUT,
	AIO_TERMINATED,
};

/* exit_code for runs the agent killed (hard_timeout, /v1/shell/kill). */
#define AIO_EXIT_KILLED (-1)

struct aio_run;

/* Start COMMAND in CWD (NULL: $HOME). HARD_TIMEOUT_S > 0 kills it after that
 * many seconds. NULL with ERR on failure. The caller holds one reference. */
struct aio_run *aio_run_start(const struct ag_ctx *ctx, const char *command, const char *cwd,
			      double hard_timeout_s, ax_error *err);
void aio_run_ref(struct aio_run *r);
void aio_run_unref(struct aio_run *r);

enum aio_wait {
	AIO_WAIT_DONE,          /* the process has ended */
	AIO_WAIT_DEADLINE,      /* DEADLINE passed first */
	AIO_WAIT_NO_CHANGE,     /* no new output for NO_CHANGE_S seconds */
};

/* Wait for the end of R. DEADLINE (CLOCK_MONOTONIC) and NO_CHANGE_S (> 0)
 * are optional (NULL, <= 0). */
enum aio_wait aio_run_wait(struct aio_run *r, const struct timespec *deadline, double no_change_s);

/* Kill R's process group with SIGKILL; it ends as AIO_TERMINATED. False if
 * it had already ended. */
bool aio_run_kill(struct aio_run *r);

/* A consistent view of R. OUTPUT is malloc'd (at most LIMIT bytes plus the
 * truncation note); EXIT_CODE is meaningful only when ENDED. */
struct aio_run_state {
	enum aio_status status;
	bool ended;
	int exit_code;
	char *output;
	size_t output_len;
};
int aio_run_state(struct aio_run *r, size_t limit, struct aio_run_state *s);

/* Has R's process ended? */
bool aio_run_ended(struct aio_run *r);

/* The command text and its working directory (constant for R's life). */
const char *aio_run_command(const struct aio_run *r);
const char *aio_run_cwd(const struct aio_run *r);

/* A monotonic time SECONDS from now. */
struct timespec aio_deadline(double seconds);

#endif
