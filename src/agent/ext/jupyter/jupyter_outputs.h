/* The outputs of one execution, kept as a notebook keeps them, from the
 * iopub messages of that execution: stream text merged per stream,
 * execute_result, display_data (updated in place by update_display_data
 * with the same display_id), errors, and clear_output (with wait=true, the
 * clearing happens when the next output arrives).
 *
 * Each output is an AIO JupyterOutput with every key present:
 * {output_type, name, text, data, metadata, execution_count, ename, evalue,
 * traceback}, the unused ones null. Pure: tested in test_jupyter_wire.c. */
#ifndef ALLOX_AGENT_JUPYTER_OUTPUTS_H
#define ALLOX_AGENT_JUPYTER_OUTPUTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "agent/ext/jupyter/jupyter_wire.h"

/* Text and data kept per execution; what comes later is dropped (and said so). */
#define JO_MAX_BYTES ((size_t)32 << 20)

struct jo_outputs {
	json_t *list;           /* the outputs */
	json_t *display_ids;    /* for each output its transient display_id, or null */
	bool clear_pending;
	size_t bytes;
	bool truncated;
};

void jo_init(struct jo_outputs *o);
void jo_free(struct jo_outputs *o);

/* Take iopub message M, known to belong to this execution. Other message
 * types (status, execute_input, comm_*) are ignored. */
void jo_take(struct jo_outputs *o, const struct jw_msg *m);

/* Append an error output that did not come from the kernel. */
void jo_add_error(struct jo_outputs *o, const char *ename, const char *evalue);

/* The list (a new reference), with a note on stderr if some was dropped. */
json_t *jo_result(struct jo_outputs *o);

#endif
