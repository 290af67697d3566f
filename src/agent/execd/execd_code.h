/* POST /code as the agent sees it: a run that names neither a context nor a
 * language is a plain shell command, as in the official execd (its
 * "stateless" example), streamed like POST /command; any other run goes to
 * a Jupyter kernel in the extension module (routes_code.h). */
#ifndef ALLOX_AGENT_EXECD_CODE_H
#define ALLOX_AGENT_EXECD_CODE_H

#include "agent/core/route.h"

enum MHD_Result ag_execd_code_run(struct ag_req *req);

#endif
