/* GET /files/download?path=P: the file's bytes, sent straight from the file
 * (sendfile, constant memory). "Range: bytes=a-b" (also "a-" and "-n"; of
 * several ranges the first satisfiable one) gives 206 with Content-Range,
 * an unsatisfiable or malformed range 416. Content-Disposition: attachment
 * with the base name. */
#ifndef ALLOX_AGENT_EXECD_DOWNLOAD_H
#define ALLOX_AGENT_EXECD_DOWNLOAD_H

#include "agent/core/route.h"

enum MHD_Result ag_execd_download(struct ag_req *req);

#endif
