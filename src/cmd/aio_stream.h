/*
 * aio exec, streamed: the AIO shell's exec answers early (a one second soft
 * timeout) with the output so far, then /v1/shell/wait and /v1/shell/view
 * poll the session once a second and the new part of the output is written
 * as it comes. Ctrl-C kills the remote command (/v1/shell/kill).
 */
#ifndef ALLOX_AIO_STREAM_H
#define ALLOX_AIO_STREAM_H

#include "cmd/command.h"
#include "lib/http.h"

/*
 * Run BODY (an exec request; its timeout and truncate are set here) and write
 * the output to the command's stream (ctx->stream) as it grows. *FINAL is the last result (exec or view
 * data: status, output, exit_code). Returns 0, 128+N when signal N
 * interrupted it (the remote command killed), or -1 with ERR.
 */
int ax_aio_exec_stream(ax_ctx *ctx, ax_http *aio, json_t *body, json_t **final, ax_error *err);

#endif
