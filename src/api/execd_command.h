/* execd POST /command: run a shell command and follow its event stream. */
#ifndef ALLOX_EXECD_COMMAND_H
#define ALLOX_EXECD_COMMAND_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "api/execd_events.h"
#include "lib/http.h"


typedef enum ax_command_end {
	AX_COMMAND_EXITED,      /* *exit_code holds the status */
	AX_COMMAND_TIMED_OUT,   /* the deadline passed; the command was interrupted */
	AX_COMMAND_INTERRUPTED, /* *stop became non-zero (Ctrl-C); the command was interrupted */
} ax_command_end;

typedef struct ax_command_run {
	const char *command;
	const char *cwd;            /* NULL: the sandbox's default (/home/gem) */
	long long timeout_ms;       /* 0: none */
	volatile sig_atomic_t *stop;/* polled; non-zero interrupts the command */
} ax_command_run;

/* Run RUN through EXECD, streaming output to EV. Returns 0 with *END (and
 * *EXIT_CODE for AX_COMMAND_EXITED); -1 on a transport or protocol failure,
 * including a stream that ends without a terminal event. */
int ax_execd_run(ax_http *execd, const ax_command_run *run, const ax_command_events *ev, ax_command_end *end,
		 int *exit_code, ax_error *err);

/* Quote each word for a POSIX shell and join them with spaces; a single word
 * is taken as a shell line as it is. malloc'd. */
char *ax_shell_join(const char *const *words, size_t n);

#endif
