/* execd directory routes: POST /directories (mkdir -p), DELETE /directories
 * (rm -rf), GET /directories/list?path=&depth=. */
#ifndef ALLOX_AGENT_EXECD_DIRS_H
#define ALLOX_AGENT_EXECD_DIRS_H

#include "agent/core/route.h"

enum MHD_Result ag_execd_dirs_make(struct ag_req *req);
enum MHD_Result ag_execd_dirs_remove(struct ag_req *req);
enum MHD_Result ag_execd_dirs_list(struct ag_req *req);

#endif
