/* The foreground reply of POST /command: an event stream produced while the
 * command runs (see execd_event.h for the framing). Events: init (text = the
 * command id), then stdout/stderr per line as the output appears, a ping
 * (text "pong") after every 3 s without events, and last exactly one of
 * execution_complete (exit 0) or error (ename "CommandExecError", evalue the
 * exit code in decimal, -1 when a signal ended it, traceback ["exit status
 * N"] or ["signal: killed"]). A timeout or a client that goes away gets the
 * process group SIGKILLed. */
#ifndef ALLOX_AGENT_EXECD_STREAM_H
#define ALLOX_AGENT_EXECD_STREAM_H

#include <stdint.h>

#include "agent/execd/execd_registry.h"
#include "agent/core/route.h"
#include "agent/core/proc_spawn.h"

/* Stream the started command PROC registered as CMD; takes over both (and
 * the caller's reference to CMD). TIMEOUT_MS 0: none. */
enum MHD_Result ag_stream_reply(struct ag_req *req, struct ag_proc *proc, struct ag_cmd *cmd, int64_t timeout_ms);

/* The stream for a command that could not start: init, then an error event
 * whose evalue is MESSAGE (the official execd reports the OS error so). */
enum MHD_Result ag_stream_reply_failed(struct ag_req *req, const char *id, const char *message);

/* The stream of a background command: init, then execution_complete at once. */
enum MHD_Result ag_stream_reply_started(struct ag_req *req, const char *id);

/* RESP (NULL: NULL) with the headers of an event stream: its type, and no
 * buffering by proxies such as nginx. */
struct MHD_Response *ag_with_stream_headers(struct MHD_Response *resp);

/* The client's socket, to notice a hang-up at once; -1 when unknown. */
int ag_connection_fd(const struct ag_req *req);

#endif
