/* execd command routes: POST /command, DELETE /command?id=,
 * GET /command/status/{id}, GET /command/{id}/logs?cursor=N. */
#ifndef ALLOX_AGENT_EXECD_COMMAND_H
#define ALLOX_AGENT_EXECD_COMMAND_H

#include "agent/core/route.h"

enum MHD_Result ag_execd_run(struct ag_req *req);
enum MHD_Result ag_execd_interrupt(struct ag_req *req);
enum MHD_Result ag_execd_status(struct ag_req *req);
enum MHD_Result ag_execd_logs(struct ag_req *req);

#endif
