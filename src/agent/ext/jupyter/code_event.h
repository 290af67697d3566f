/* The events of POST /code (the execd API's ServerStreamEvent), built from
 * a kernel's iopub messages. Each is one JSON object; the stream writes it
 * followed by a blank line, as the official execd frames events. Field
 * names and shapes follow the official execd: init carries the context id
 * in text, execution_count its own event, a result's MIME bundle has
 * "text/plain" renamed "text" (what the official SDKs read), and an error
 * is {ename, evalue, traceback}. Every event has a timestamp (epoch ms). */
#ifndef ALLOX_AGENT_CODE_EVENT_H
#define ALLOX_AGENT_CODE_EVENT_H

#include <jansson.h>
#include <stdint.h>

#include "agent/ext/jupyter/jupyter_wire.h"

/* {type, text}: init, stdout, stderr, ping. */
json_t *ce_text(const char *type, const char *text);

/* The event for iopub message M of the running code, or NULL when it has
 * none: stream -> stdout/stderr, execute_input -> execution_count,
 * execute_result and display_data -> result. Errors are not streamed here:
 * the error event is the stream's last (ce_final). */
json_t *ce_from_iopub(const struct jw_msg *m);

/* The last event for RESULT (ag_jupyter_context_run's): execution_complete
 * with EXECUTION_MS when its status is ok, else error with the last error
 * output (a DeadKernelError when the kernel died). */
json_t *ce_final(const json_t *result, int64_t execution_ms);

/* {type: error, error: {ename, evalue, traceback: []}}. */
json_t *ce_error(const char *ename, const char *evalue);

#endif
