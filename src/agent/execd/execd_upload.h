/* POST /files/upload: multipart/form-data with pairs of parts, "metadata"
 * (JSON {path, owner?, group?, mode?}) then "file" (the bytes). Each file is
 * streamed to a temporary file beside its target as the request body
 * arrives and renamed over the target when its part ends, so memory stays
 * constant whatever the size and a failed upload leaves the target as it
 * was. Parent directories are created. */
#ifndef ALLOX_AGENT_EXECD_UPLOAD_H
#define ALLOX_AGENT_EXECD_UPLOAD_H

#include "agent/core/route.h"

int ag_execd_upload_body(struct ag_req *req, const char *data, size_t len);
enum MHD_Result ag_execd_upload(struct ag_req *req);

#endif
