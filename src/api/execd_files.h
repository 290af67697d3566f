/*
 * execd's file routes (specs/opensandbox/execd-api.yaml, "Filesystem"):
 * streamed download and upload, make-directories, file info and directory
 * listing. Bodies never sit whole in memory: downloads go to a sink chunk by
 * chunk, uploads are read from a file descriptor as curl sends them.
 *
 * A non-2xx answer becomes "Sandbox error [CODE]: message" (exit 1), CODE
 * being execd's error code (FILE_NOT_FOUND, ...) or "HTTP <status>".
 */
#ifndef ALLOX_EXECD_FILES_H
#define ALLOX_EXECD_FILES_H

#include <stddef.h>
#include <jansson.h>

#include "lib/ax_error.h"
#include "lib/http.h"

/* Takes the next chunk of a download; -1 with ERR filled stops the transfer. */
typedef int (*ax_execd_sink)(void *ud, const char *data, size_t len, ax_error *err);

/* Called as bytes move (and about once a second when they don't), with the
 * bytes of this request so far and its total (-1 if unknown). -1 with ERR
 * filled aborts: this is where Ctrl-C and the progress bar hook in. */
typedef int (*ax_execd_tick)(void *ud, unsigned long long done, long long total, ax_error *err);

/* A download's destination when it is a regular file: the plain-http client
 * then splices the body into FD (zero-copy) after FLUSH(UD) wrote out what
 * the sink buffered. */
typedef struct ax_execd_file_sink {
	int fd;
	const char *name;        /* for "Cannot write NAME: ..." */
	int (*flush)(void *ud, ax_error *err);
	void *ud;
} ax_execd_file_sink;

typedef struct ax_execd_xfer {
	ax_execd_tick tick;      /* may be NULL */
	const ax_execd_file_sink *file_sink; /* downloads; may be NULL */
	void *tick_ud;
	size_t buffer_size;      /* curl's receive/send buffer; 0: a default sized for throughput */
	long stall_timeout_s;    /* fail when no byte moves for this long; 0: never.
	                            Streams have no overall timeout: a big file may take hours. */
} ax_execd_xfer;

/* GET /files/download?path=PATH, each chunk to SINK. *BYTES (may be NULL)
 * gets the body length. */
int ax_execd_download(ax_http *h, const char *path, ax_execd_sink sink, void *sink_ud, const ax_execd_xfer *x,
		      unsigned long long *bytes, ax_error *err);

/* What an upload sends: SIZE bytes of FD from OFFSET on (read with pread,
 * so curl may rewind), or SIZE bytes of DATA. */
typedef struct ax_execd_source {
	int fd;                  /* -1: use DATA */
	unsigned long long offset;
	const void *data;
	unsigned long long size;
} ax_execd_source;

/* POST /files/upload with one metadata part {path, mode} and one file part.
 * MODE uses execd's convention (octal digits read as decimal: 644); 0 leaves
 * it to execd. Parent directories are created by execd; an existing file is
 * replaced. */
int ax_execd_upload(ax_http *h, const char *path, int mode, const ax_execd_source *src, const ax_execd_xfer *x,
		    ax_error *err);

/* POST /directories with DIRS, an object path -> {"mode": M} (mkdir -p each). */
int ax_execd_mkdirs(ax_http *h, const json_t *dirs, ax_error *err);

/* GET /files/info?path=PATH: *INFO becomes the FileInfo object of PATH. */
int ax_execd_info(ax_http *h, const char *path, json_t **info, ax_error *err);

/* GET /directories/list?path=PATH&depth=DEPTH: *ENTRIES becomes an array of
 * FileInfo (the directory itself excluded, symlinks reported, not followed). */
int ax_execd_list(ax_http *h, const char *path, int depth, json_t **entries, ax_error *err);

/* The decoding halves of the calls above, apart from HTTP so that they can
 * be fuzzed (tests/fuzz/fuzz_runtime.c). BODY is LEN bytes, need not be
 * NUL-terminated. */
/* A non-2xx answer as one line "Sandbox error [CODE]: message"; always -1. */
int ax_execd_decode_error(long status, const char *body, size_t len, ax_error *err);
/* A /files/info answer for PATH: *INFO an object whose "path" is a string. */
int ax_execd_decode_info(const char *body, size_t len, const char *path, json_t **info, ax_error *err);
/* A /directories/list answer for PATH: *ENTRIES an array. */
int ax_execd_decode_list(const char *body, size_t len, const char *path, json_t **entries, ax_error *err);

#endif
