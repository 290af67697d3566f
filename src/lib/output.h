/*
 * One renderer for every command: handlers return data (a JSON object or an
 * array of row objects) and a view; this prints it as table, json, yaml or raw.
 */
#ifndef ALLOX_OUTPUT_H
#define ALLOX_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <jansson.h>

#include "lib/ax_error.h"

typedef enum ax_format {
	AX_FMT_TABLE = 1 << 0,
	AX_FMT_JSON = 1 << 1,
	AX_FMT_YAML = 1 << 2,
	AX_FMT_RAW = 1 << 3,
} ax_format;

/* How a result is shown as a table; json/yaml always show all the data. */
typedef struct ax_view {
	const char *title;           /* panel or table title; may be NULL */
	const char *const *columns;  /* rows: keys shown as columns, NULL-terminated;
	                                NULL means the keys of the first row */
} ax_view;

typedef struct ax_render_opts {
	ax_format format;
	bool color;   /* ANSI colour; the caller decides (TTY, NO_COLOR, --no-color) */
	bool utf8;    /* box drawing and icons; else ASCII fallback */
	int width;    /* terminal width in columns for table; <= 0 means unlimited */
	bool color_err; /* the same for what is shown on stderr (tracebacks) */
} ax_render_opts;

/* Parse "table"/"json"/"yaml"/"raw"; returns 0 if unknown. */
ax_format ax_format_from_name(const char *name);
const char *ax_format_name(ax_format f);

/*
 * Render DATA to OUT.
 *  - object, table: a box with the title and one "key: value" line per field.
 *    Nested objects/arrays are shown as compact JSON; null as "-".
 *  - array of objects, table: header row of upper-cased column names, one row
 *    per element; missing key "-", null "-". A "state" column gets an icon
 *    (running/ready ● green, pending/creating ◐ yellow, paused ⏸ blue,
 *    stopped/terminated/killed ○ dim, error/failed ✗ red; matched
 *    case-insensitively) when utf8; colour only when color. Columns shrink
 *    (long cells cut with "…" or "..." in ASCII) to fit width; the id column
 *    is never cut. Width is computed in terminal cells (wcwidth).
 *    An empty array prints the title (if any) and "(no items)".
 *  - json: pretty (2-space indent), key order kept, trailing newline.
 *  - yaml: libyaml emitter, block style, key order kept, parses back to the
 *    same data (strings that look like numbers/bools/null are quoted).
 *  - raw: rows: one line per row, the view's columns joined by TAB, no header,
 *    null/missing empty; object: each value on its own line; a JSON string
 *    data prints verbatim (no newline added).
 * Returns 0, or -1 with ERR set when writing to OUT fails (errno kept in message).
 */
int ax_render(FILE *out, const json_t *data, const ax_view *view,
	      const ax_render_opts *opts, ax_error *err);

/* Display width of a UTF-8 string in terminal cells (invalid bytes count 1). */
int ax_display_width(const char *s);

/*
 * What a command hands the renderer. Handlers never learn the format: they
 * describe their result once and this decides what each format shows.
 */
typedef enum ax_result_kind {
	AX_RESULT_NONE,   /* nothing to print */
	AX_RESULT_DATA,   /* data + view, rendered in the chosen format */
	AX_RESULT_TEXT,   /* a plain message line on stdout */
	AX_RESULT_STREAM, /* output went through the stream as it came (ax_stream): live
	                     formats print nothing more, documents (json, yaml) render data,
	                     which the handler built from what the stream kept */
} ax_result_kind;

typedef struct ax_result {
	ax_result_kind kind;
	json_t *data;
	json_t *human;  /* what table and raw show instead of data: rows or text for people
	                   where data is a document for programs; NULL: data */
	ax_view view;
	char *text;
} ax_result;

/* Print RES to OUT as OPTS says. 0, or -1 with ERR when writing fails. */
int ax_render_result(FILE *out, const ax_result *res, const ax_render_opts *opts, ax_error *err);

/*
 * The streaming side of the renderer, handed to a handler while it runs
 * (ctx->stream) so that output is shown as it arrives: in a live format
 * (raw, table, or a command without -o) every write goes straight out and
 * is flushed; in a document format (json, yaml) output is kept for the
 * document the handler returns as an AX_RESULT_STREAM, and messages meant
 * for people are dropped, the document's fields saying the same.
 */
typedef enum ax_stream_fd { AX_STREAM_OUT, AX_STREAM_ERR } ax_stream_fd;

typedef struct ax_stream {
	FILE *out, *err;
	ax_render_opts opts;
	FILE *keep[2];     /* memstreams for documents, opened on the first write */
	char *kept[2];
	size_t kept_len[2];
} ax_stream;

void ax_stream_init(ax_stream *s, FILE *out, FILE *err, const ax_render_opts *opts);
void ax_stream_free(ax_stream *s);

/* Whether output is shown as it arrives. A handler whose server offers a
 * polling protocol for that and a single call otherwise (aio exec) asks,
 * so a document costs one request; it never asks which format. */
bool ax_stream_live(const ax_stream *s);

/* Command output for FD. Live: written and flushed; else kept. 0, or -1
 * with errno set when the write failed. */
int ax_stream_write(ax_stream *s, ax_stream_fd fd, const char *buf, size_t len);

/* A line for people (progress, a note) on FD, in live formats only. 0, or
 * -1 with errno set. */
int ax_stream_printf(ax_stream *s, ax_stream_fd fd, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* What was kept for FD as a JSON string ("" when live or nothing came);
 * NULL when it is not UTF-8 (or out of memory). */
json_t *ax_stream_kept(ax_stream *s, ax_stream_fd fd);

/* A failure the document records (a Jupyter status, an MCP tool's
 * isError): live formats report ERR (-1); documents exit with STATUS
 * silently, as their fields say it. */
int ax_stream_failed(const ax_stream *s, int status, ax_error *err);

/* A Jupyter execution RESULT (output_jupyter.h): live, its outputs as a
 * notebook shows them, image/png outputs saved into IMAGE_DIR (may be NULL)
 * as they come; documents save the images and list them in RESULT as
 * "saved_images". 0, or -1 with ERR. */
int ax_stream_jupyter(ax_stream *s, json_t *result, const char *image_dir, ax_error *err);

/* An MCP CallToolResult (output_mcp.h), its images already saved to the
 * paths in SAVED: live, shown as text; documents show it in data. */
int ax_stream_mcp(ax_stream *s, const json_t *result, const json_t *saved, ax_error *err);

/*
 * A transfer's progress, shown by the stream as a one-line bar on its err
 * (bytes, percentage, rate, ETA): only when that is a terminal, only once
 * the transfer has run for half a second (quick ones stay silent), and
 * erased when done, so in every format it leaves nothing behind and stdout
 * never sees it.
 */
typedef struct ax_progress {
	int fd;                      /* the stream's err when a terminal, else -1: nothing is drawn */
	bool shown;                  /* a line is on screen and must be erased */
	const char *label;           /* "upload", "download" */
	long long total;             /* bytes; < 0 unknown */
	unsigned long long done;
	double start, last;          /* ax_mono_s() */
} ax_progress;

/* Start timing a transfer shown on S (NULL: never shown). TOTAL < 0 when
 * unknown; ax_progress_set_total may fill it in later. */
void ax_progress_start(ax_progress *p, const ax_stream *s, const char *label, long long total);
void ax_progress_set_total(ax_progress *p, long long total);
/* DONE bytes so far; draws at most a few times a second. */
void ax_progress_update(ax_progress *p, unsigned long long done);
/* Erase the line, if one was drawn. */
void ax_progress_end(ax_progress *p);

#endif
