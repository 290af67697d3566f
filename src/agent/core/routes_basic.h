#ifndef ALLOX_AGENT_ROUTES_BASIC_H
#define ALLOX_AGENT_ROUTES_BASIC_H

#include "agent/core/route.h"

enum MHD_Result ag_get_ping(struct ag_req *req);
enum MHD_Result ag_get_sandbox(struct ag_req *req);
enum MHD_Result ag_get_shell_sessions(struct ag_req *req);

#endif
