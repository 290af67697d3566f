/* Errors travel up to the command layer as values; only src/cli prints them. */
#ifndef ALLOX_ERROR_H
#define ALLOX_ERROR_H

#include <signal.h>
#include <stdarg.h>

/* Exit statuses are a contract (see allox-cli --help and README). */
enum {
	AX_EXIT_OK = 0,
	AX_EXIT_FAILURE = 1,
	AX_EXIT_USAGE = 2,
	/* 128 + the signal's number, as shells report a death by signal. */
	AX_EXIT_SIGNAL_BASE = 128,
};

/*
 * The machine-readable codes of `-o json` errors and the exit status each
 * goes out with: one list, so a code cannot leave with another status.
 * Scripts match these names; allox-cli(1) ERROR CODES documents each one
 * and tests/cli/docs.sh keeps that table and this list in step.
 * INTERRUPTED exits 128 + the signal (130 for Ctrl-C; ax_fail_signal).
 */
#define AX_ERROR_CODES(X) \
	X(USAGE, AX_EXIT_USAGE) \
	X(INVALID_VALUE, AX_EXIT_USAGE) \
	X(INVALID_DURATION, AX_EXIT_USAGE) \
	X(INTERRUPTED, AX_EXIT_SIGNAL_BASE + SIGINT) \
	X(CONFIG, AX_EXIT_FAILURE) \
	X(NO_SESSION, AX_EXIT_FAILURE) \
	X(IO, AX_EXIT_FAILURE) \
	X(NOMEM, AX_EXIT_FAILURE) \
	X(ENCODING, AX_EXIT_FAILURE) \
	X(YAML, AX_EXIT_FAILURE) \
	X(INTERNAL, AX_EXIT_FAILURE) \
	X(EXISTS, AX_EXIT_FAILURE) \
	X(NOT_FOUND, AX_EXIT_FAILURE) \
	X(NOT_DIRECTORY, AX_EXIT_FAILURE) \
	X(IS_DIRECTORY, AX_EXIT_FAILURE) \
	X(NOT_REGULAR, AX_EXIT_FAILURE) \
	X(SYMLINK, AX_EXIT_FAILURE) \
	X(TOO_LARGE, AX_EXIT_FAILURE) \
	X(UNSAFE_REMOTE, AX_EXIT_FAILURE) \
	X(UNSUPPORTED, AX_EXIT_FAILURE) \
	X(CONNECTION, AX_EXIT_FAILURE) \
	X(HTTP, AX_EXIT_FAILURE) \
	X(PROTOCOL, AX_EXIT_FAILURE) \
	X(SERVER, AX_EXIT_FAILURE) \
	X(ENGINE, AX_EXIT_FAILURE) \
	X(NOT_READY, AX_EXIT_FAILURE) \
	X(SANDBOX_NOT_RUNNING, AX_EXIT_FAILURE) \
	X(EXECD, AX_EXIT_FAILURE) \
	X(EXEC, AX_EXIT_FAILURE) \
	X(AIO, AX_EXIT_FAILURE) \
	X(AIO_CONNECT, AX_EXIT_FAILURE) \
	X(JUPYTER, AX_EXIT_FAILURE) \
	X(MCP, AX_EXIT_FAILURE) \
	X(MCP_UNKNOWN_SERVER, AX_EXIT_FAILURE) \
	X(MCP_UNKNOWN_TOOL, AX_EXIT_FAILURE) \
	X(MCP_TOOL_ERROR, AX_EXIT_FAILURE) \
	X(CHECKPOINT_FAILED, AX_EXIT_FAILURE) \
	X(CHECKPOINT_TIMEOUT, AX_EXIT_FAILURE) \
	X(RUNTIME, AX_EXIT_FAILURE) \
	X(UNTRUSTED, AX_EXIT_FAILURE) \
	X(NOT_RUNNING, AX_EXIT_FAILURE) \
	X(NOT_LISTENING, AX_EXIT_FAILURE) \
	X(GONE, AX_EXIT_FAILURE) \
	X(SPAWN, AX_EXIT_FAILURE) \
	X(CWD, AX_EXIT_FAILURE) \
	X(IDENT, AX_EXIT_FAILURE) \
	X(SIGNAL, AX_EXIT_FAILURE) \
	X(THREAD, AX_EXIT_FAILURE) \
	X(CONSOLE, AX_EXIT_FAILURE) \
	X(LOG, AX_EXIT_FAILURE)

typedef enum ax_code {
	AX_CODE_NONE = 0,	/* no error yet (a cleared ax_error) */
#define AX_CODE_ENUM(name, exit_status) AX_CODE_##name,
	AX_ERROR_CODES(AX_CODE_ENUM)
#undef AX_CODE_ENUM
	AX_CODE_COUNT
} ax_code;

typedef struct ax_error {
	int exit_code;        /* the code's exit status (see AX_ERROR_CODES) */
	ax_code code;
	/* The server's own code when it gave one ("SANDBOX::NOT_FOUND"): part
	 * of its API, so -o json passes it on instead of the generic HTTP. */
	char peer_code[64];
	char message[1024];   /* one line, no trailing newline, no "Error: " prefix */
	char hint[512];       /* optional second line shown after the message */
} ax_error;

/* Fill ERR (if non-NULL) and return -1 so callers can write `return ax_fail(...)`. */
int ax_fail(ax_error *err, ax_code code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int ax_vfail(ax_error *err, ax_code code, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
/* INTERRUPTED by signal SIG: exits 128 + SIG. */
int ax_fail_signal(ax_error *err, int sig, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Record the server's code PEER (NULL or "" for none) on an error ax_fail filled. */
void ax_error_peer_code(ax_error *err, const char *peer);
void ax_error_hint(ax_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ax_error_clear(ax_error *err);

/* What -o json shows as the error's code: the server's, else the code's name. */
const char *ax_error_code_name(const ax_error *err);

/* The code table, for the docs check (`allox-cli __commands`): the name
 * scripts see and the exit status, for AX_CODE_NONE < CODE < AX_CODE_COUNT. */
const char *ax_code_name(ax_code code);
int ax_code_exit(ax_code code);

#endif
