/* execd file routes that are not transfers: GET /files/info, DELETE /files,
 * GET /files/search, POST /files/permissions, POST /files/mv,
 * POST /files/replace (execd_replace.c). */
#ifndef ALLOX_AGENT_EXECD_FILE_ROUTES_H
#define ALLOX_AGENT_EXECD_FILE_ROUTES_H

#include "agent/core/route.h"

enum MHD_Result ag_execd_files_info(struct ag_req *req);
enum MHD_Result ag_execd_files_delete(struct ag_req *req);
enum MHD_Result ag_execd_files_search(struct ag_req *req);
enum MHD_Result ag_execd_files_chmod(struct ag_req *req);
enum MHD_Result ag_execd_files_mv(struct ag_req *req);
enum MHD_Result ag_execd_files_replace(struct ag_req *req);

#endif
