/*
 * Private to the output module (output.c, output_table.c, output_yaml.c):
 * the render context and helpers the format back-ends share.
 */
#ifndef ALLOX_OUTPUT_INTERNAL_H
#define ALLOX_OUTPUT_INTERNAL_H

#if !defined(_GNU_SOURCE) && !defined(_XOPEN_SOURCE)
#define _XOPEN_SOURCE 700 /* wcwidth, strdup, strcasecmp, strnlen */
#endif

#include <stdbool.h>
#include <stddef.h>

#include "lib/output.h"

typedef struct ax_out {
	FILE *out;
	const ax_render_opts *opts;
	int werr;  /* errno of the first failed write; later writes are skipped */
	bool oom;  /* an allocation failed; reported once rendering is done */
} ax_out;

void axo_put_n(ax_out *c, const char *s, size_t n);
void axo_put(ax_out *c, const char *s);

/* strdup that records failure in C->oom instead of aborting the render. */
char *axo_strdup(ax_out *c, const char *s);

/* Shortest round-tripping text of D, always with a '.' (needs 32 bytes). */
void axo_fmt_real(double d, char *buf, size_t size);

/* A value as text (nested values as compact JSON); NULL for null. FOR_HUMANS
 * trades exactness of nested reals for readability. The caller frees. */
char *axo_value_text(ax_out *c, const json_t *v, bool for_humans);

/* A non-empty array whose elements are all objects. */
bool axo_is_rows(const json_t *data);

/* The view's columns, or the first row's keys in order; the caller frees the
 * array (not the strings). NULL only when out of memory. */
const char **axo_row_columns(ax_out *c, const json_t *rows, const ax_view *view,
			     size_t *ncols);

void axo_render_table(ax_out *c, const json_t *data, const ax_view *view);

/* Returns -1 with ERR set when libyaml refuses the data; write errors are
 * left in C->werr for the caller to report. */
int axo_render_yaml(ax_out *c, const json_t *data, ax_error *err);

#endif
