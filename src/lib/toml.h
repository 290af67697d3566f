/*
 * The TOML subset allox reads and edits (no C TOML library is packaged for
 * Debian 12, so this is the one parser we write by hand).
 *
 * Supported: comments, [tables], [dotted.tables], bare/quoted/dotted keys,
 * basic strings with escapes (\b \t \n \f \r \" \\ \uXXXX \UXXXXXXXX),
 * literal strings, integers (decimal, with optional sign and _ separators;
 * 0x/0o/0b too), floats (incl. exponent; inf and nan are rejected because
 * jansson cannot hold them), booleans, arrays
 * (also multi-line, trailing comma, comments inside) and inline tables.
 * Anything else (dates, multi-line strings, arrays of tables) is an error
 * reported as "LINE:COLUMN: reason".
 *
 * Values map onto jansson: table -> object (insertion order kept),
 * array -> array, string -> string, integer -> integer, float -> real,
 * boolean -> true/false.
 */
#ifndef ALLOX_TOML_H
#define ALLOX_TOML_H

#include <stddef.h>
#include <jansson.h>

#include "lib/ax_error.h"

/* Parse TEXT (LEN bytes, need not be NUL-terminated). On success store a new
 * object in *OUT and return 0. On failure return -1 with ERR->message set to
 * "LINE:COLUMN: reason" (1-based), exit_code AX_EXIT_FAILURE, code "CONFIG". */
int toml_parse(const char *text, size_t len, json_t **out, ax_error *err);

/* Return a new malloc'd string: VALUE written as a TOML value
 * (strings quoted and escaped, arrays as [a, b], objects as inline tables).
 * NULL if VALUE is json null or otherwise not representable. */
char *toml_format_value(const json_t *value);

/* Edit one key in place. TEXT is a document that parses; KEY is a dotted path
 * ("connection.domain", at least two parts: table path + key name).
 * If the key exists (as `name = ...` under [table], or as a dotted key), only
 * its value text is replaced: comments, blank lines, ordering, and every other
 * byte of the file stay as they were (a trailing comment on the same line is kept).
 * A key that is only present commented out (e.g. "# name = ...") is left as is
 * and the new key is added after it. If the table exists the key is appended at
 * the end of that table's block (before trailing blank lines/comments that precede
 * the next table header); otherwise a new "[table]" block is appended at the
 * end of the document.
 * On success *OUT is a new malloc'd NUL-terminated document and 0 is returned;
 * the result always parses and yields VALUE at KEY. Returns -1 with ERR on a
 * bad key or when KEY's parent is not a table (e.g. it is a string). */
int toml_set(const char *text, size_t len, const char *key, const json_t *value,
	     char **out, ax_error *err);

#endif
