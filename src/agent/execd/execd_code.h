/* The execd API's /code routes as the agent sees them. The agent answers
 * itself what needs no Jupyter, so the extension module is not loaded for
 * it: a run that names neither a context nor a language is a plain shell
 * command, as in the official execd (its "stateless" example), streamed
 * like POST /command; and while no installed kernelspec speaks bash, a bash
 * context is a bash session (execd_session.h) served here. Everything else
 * goes to the Jupyter kernels of the extension module (routes_code.h). */
#ifndef ALLOX_AGENT_EXECD_CODE_H
#define ALLOX_AGENT_EXECD_CODE_H

#include <stdbool.h>

#include "agent/core/route.h"

enum MHD_Result ag_execd_code_run(struct ag_req *req);
enum MHD_Result ag_execd_code_context_create(struct ag_req *req);
enum MHD_Result ag_execd_code_contexts(struct ag_req *req);
enum MHD_Result ag_execd_code_contexts_delete(struct ag_req *req);
enum MHD_Result ag_execd_code_context_get(struct ag_req *req);
enum MHD_Result ag_execd_code_context_delete(struct ag_req *req);
enum MHD_Result ag_execd_code_interrupt(struct ag_req *req);

/* Are LANGUAGE's contexts bash sessions (bash, and no bash kernel)? */
bool ag_execd_code_bash(const char *language);

#endif
