/* What `aio jupyter run` shows of an execution result, as a notebook would:
 * stream text to stdout or stderr as named, results and displays by their
 * text/plain, errors by their traceback (on stderr), and image/png outputs
 * saved as files when asked. */
#ifndef ALLOX_OUTPUT_JUPYTER_H
#define ALLOX_OUTPUT_JUPYTER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "lib/ax_error.h"

struct ax_jupyter_show {
	FILE *out, *err;
	bool color;             /* keep the ANSI colour of tracebacks */
	const char *image_dir;  /* write image/png outputs here; NULL: do not */
	json_t *saved;          /* the paths written, appended to (an array) */
};

/* Save RESULT's image/png outputs into S->image_dir (created if missing) as
 * output_<execution_count>_<index>.png (index: the output's place in the
 * list, from 0, as nbconvert names them), each path appended to S->saved.
 * 0, or -1 with ERR. */
int ax_jupyter_save_images(const json_t *result, struct ax_jupyter_show *s, ax_error *err);

/* Print RESULT's outputs, saving images as ax_jupyter_save_images does and
 * naming each file where the image would be. 0, or -1 with ERR when a write
 * fails. */
int ax_jupyter_show(const json_t *result, struct ax_jupyter_show *s, ax_error *err);

/* Remove ANSI escape sequences (CSI, and ESC + intermediates + final byte)
 * from S in place. */
void ax_strip_ansi(char *s);

#endif
