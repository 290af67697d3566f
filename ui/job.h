/*
 * One command line run as a child process: `allox-cli GLOBALS WORDS...`.
 *
 * Running the same binary through execv keeps the shell exactly equal to
 * argv use (same table, parser, handler, renderer, messages and exit codes),
 * catches handlers' direct writes to fds 1 and 2 in the output pipe, and makes
 * Ctrl-C what it is in a terminal: SIGINT to the command, whose handler polls
 * its interrupted flag (and stops the remote command) or simply ends. A
 * worker thread could do neither; see docs/design.md.
 */
#ifndef ALLOX_TUI_JOB_H
#define ALLOX_TUI_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "cmd/command.h"

typedef struct ax_exec_env {
	char *self;        /* this executable */
	char **globals;    /* global options to forward, NULL-terminated */
	int nglobals;
} ax_exec_env;

typedef struct ax_job {
	pid_t pid;                 /* 0: nothing runs */
	int fd;                    /* read end of the output pipe, or -1 */
	double started;            /* ax_mono_s() */
} ax_job;

int ax_exec_env_init(ax_exec_env *e, const ax_globals *g, ax_error *err);
void ax_exec_env_free(ax_exec_env *e);

/*
 * Start WORDS. With CAPTURE the child's stdout and stderr go to one pipe
 * (job->fd, non-blocking) so their order is kept; otherwise they are ours.
 * Its stdin is /dev/null. COLUMNS (may be NULL) is the width tables fit in.
 */
int ax_job_start(const ax_exec_env *e, char *const *words, int n, bool capture, const char *columns,
		 ax_job *job, ax_error *err);

/* Reap the job: 1 and its exit status in *STATUS (128+N when signal N
 * ended it) when it has ended, 0 while it runs (only without BLOCK). */
int ax_job_reap(ax_job *job, bool block, int *status);

/* Seconds since the job started. */
double ax_job_seconds(const ax_job *job);

#endif
