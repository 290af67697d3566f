/* The reply of POST /code: an event stream fed while the code runs.
 *
 * The code runs on a thread of its own (ag_jupyter_context_run, which waits
 * for the context's turn and the kernel); the connection's thread sends
 * what it has produced, a ping after 3 s without events, and notices at
 * once when the client hangs up. Interrupting (DELETE /code, or the client
 * going away) goes through an eventfd the execution watches, so the kernel
 * is interrupted like a notebook's, keeping its state. */
#ifndef ALLOX_AGENT_CODE_STREAM_H
#define ALLOX_AGENT_CODE_STREAM_H

#include <stdbool.h>

#include "agent/core/route.h"
#include "agent/ext/jupyter/jupyter.h"

/* Run CODE in context S (opened by ag_jupyter_context_open, CREATED as it
 * said) and stream its events, starting with init (the context id). Takes
 * over S's reference. */
enum MHD_Result code_stream_reply(struct ag_req *req, struct ag_jupyter *j, struct jsession *s, bool created,
				  const char *code);

#endif
