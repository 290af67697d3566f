/* The bash session routes (execd_session.h): POST /session, POST
 * /session/{id}/run and DELETE /session/{id}. A run streams like
 * POST /command (execd_stream.h): init (text = the session id), stdout and
 * stderr per line, pings, then execution_complete or an error event whose
 * evalue is the exit status. A timeout or a client that goes away kills
 * what the run started; the shell and its state stay, unless it does not
 * come back (a busy loop in the shell itself), when the session ends. */
#ifndef ALLOX_AGENT_EXECD_SESSION_ROUTES_H
#define ALLOX_AGENT_EXECD_SESSION_ROUTES_H

#include "agent/core/route.h"

enum MHD_Result ag_execd_session_create(struct ag_req *req);
enum MHD_Result ag_execd_session_run(struct ag_req *req);
enum MHD_Result ag_execd_session_delete(struct ag_req *req);

#endif
