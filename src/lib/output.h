/*
 * One renderer for every command: handlers return data (a JSON object or an
 * array of row objects) and a view; this prints it as table, json, yaml or raw.
 */
#ifndef ALLOX_OUTPUT_H
#define ALLOX_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>

#include "error.h"

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

#endif
