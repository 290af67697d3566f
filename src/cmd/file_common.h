/* What the file commands share: connecting to execd, option checks, Ctrl-C,
 * progress, path arithmetic and staging names. */
#ifndef ALLOX_FILE_COMMON_H
#define ALLOX_FILE_COMMON_H

#include <signal.h>
#include <stdbool.h>

#include "cmd/command.h"
#include "api/execd_files.h"
#include "api/lifecycle.h"
#include "lib/output.h"
#include "lib/path.h"

/* The sandbox's execd as the command's target opened it (AX_TARGET_EXECD). */
typedef struct ax_file_conn {
	ax_http *execd;
	long timeout_s;        /* connection.request_timeout: plain calls, and stall limit for streams */
	volatile sig_atomic_t *interrupted;  /* ctx->interrupted */
	const ax_stream *stream;             /* ctx->stream: where progress shows */
} ax_file_conn;

void ax_file_conn_init(ax_file_conn *c, ax_ctx *ctx);
/* In ERR's message, name TO where it names FROM (a staging path the user
 * never sees, so "Cannot write DIR/.NAME.X.part" reads "Cannot write NAME"). */
void ax_file_error_rename(ax_error *err, const char *from, const char *to);

/* An octal permission as file modes are written (644, 0755, 0o600), as execd
 * wants it: the digits read as a decimal number (0o644 -> 644). 0 or -1. */
int ax_mode_parse(const char *text, int *mode);
/* --mode/--directory-mode (spec §4), given or the table's default, which
 * the parser checked: "644", "0644", "0o644" -> 644. */
int ax_file_mode_option(const ax_args *args, const char *name);

/* Ctrl-C and SIGTERM go through the context (ctx->catch_interrupts): the
 * connection keeps a pointer to the flag so deep loops can see it. */
/* The signal received since the command began catching them, or 0. */
int ax_file_interrupted(const ax_file_conn *c);
/* Fill ERR for the received signal (exit 128+signal); -1. */
int ax_file_interrupt_fail(const ax_file_conn *c, ax_error *err);

/* Progress of a whole command (one or many requests) and the tick that feeds
 * it and watches for signals. BASE is what earlier requests moved. */
typedef struct ax_file_xfer {
	ax_progress bar;
	unsigned long long base;
	bool own_total;        /* the command knows the total; ignore per-request totals */
	ax_execd_xfer x;
	const ax_file_conn *conn;
} ax_file_xfer;

void ax_file_xfer_start(ax_file_xfer *t, const ax_file_conn *c, const char *label, long long total,
			size_t buffer_size);
/* Account for a finished request of BYTES. */
void ax_file_xfer_advance(ax_file_xfer *t, unsigned long long bytes);
void ax_file_xfer_end(ax_file_xfer *t);

/* Default write size: curl hands over at most 16 KiB at a time, and a
 * write() per piece would cost more than the network. */
#define AX_FILE_WRITE_BUFFER (1024 * 1024)

/* Gathers downloaded pieces into large write()s on FD (which it does not own). */
typedef struct ax_file_writer {
	int fd;
	char *buf;
	size_t len, cap;
	const char *name;      /* for messages */
} ax_file_writer;

/* CAP 0: AX_FILE_WRITE_BUFFER. */
int ax_file_writer_open(ax_file_writer *w, int fd, size_t cap, const char *name, ax_error *err);
/* An ax_execd_sink. */
int ax_file_writer_sink(void *ud, const char *data, size_t len, ax_error *err);
int ax_file_writer_flush(ax_file_writer *w, ax_error *err);
void ax_file_writer_close(ax_file_writer *w);

/* Stream REMOTE into PATH, a file this creates (O_EXCL); on failure or a
 * signal PATH is removed. *BYTES gets what arrived. */
int ax_file_fetch(ax_file_conn *c, ax_file_xfer *t, const char *remote, const char *path,
		  unsigned long long *bytes, ax_error *err);

/* A growable list of malloc'd strings. */
typedef struct ax_file_list {
	char **v;
	size_t n, cap;
} ax_file_list;

/* Append OWNED (freed on failure too); -1 when out of memory or OWNED is NULL. */
int ax_file_list_add(ax_file_list *l, char *owned);
void ax_file_list_free(ax_file_list *l);

/* "DIR/.BASE.<random>.part": a staging name beside the final target; malloc'd. */
char *ax_file_part_name(const char *dir, const char *base);

#endif
