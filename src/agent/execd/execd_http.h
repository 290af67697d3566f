/* Request and reply plumbing shared by the execd handlers: the execd error
 * body {code, message}, query parameters and request paths. */
#ifndef ALLOX_AGENT_EXECD_HTTP_H
#define ALLOX_AGENT_EXECD_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "agent/core/route.h"

/* execd error codes (specs/opensandbox/execd-api.yaml, ErrorResponse). */
#define AG_E_INVALID_REQUEST "INVALID_REQUEST_BODY"
#define AG_E_MISSING_QUERY "MISSING_QUERY"
#define AG_E_RUNTIME "RUNTIME_ERROR"
#define AG_E_INVALID_FILE "INVALID_FILE"
#define AG_E_INVALID_CONTENT "INVALID_FILE_CONTENT"
#define AG_E_INVALID_METADATA "INVALID_FILE_METADATA"
#define AG_E_NOT_FOUND "FILE_NOT_FOUND"
#define AG_E_CONTEXT_NOT_FOUND "CONTEXT_NOT_FOUND"
#define AG_E_UNKNOWN "UNKNOWN"

/* {"code":CODE,"message":...} with STATUS. */
enum MHD_Result ag_execd_error(struct ag_req *req, unsigned status, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The request's JSON body, parsed; NULL after replying 400. */
json_t *ag_execd_body_json(struct ag_req *req, enum MHD_Result *rc);

/* The reply for a failed file-system call on PATH: 404 FILE_NOT_FOUND for
 * ENOENT/ENOTDIR, 500 RUNTIME_ERROR otherwise. */
enum MHD_Result ag_execd_fs_error(struct ag_req *req, const char *what, const char *path, int errnum);

/* The query parameter NAME: NULL when absent. *BAD is set when it holds a
 * NUL byte, which no path may contain. */
const char *ag_query(const struct ag_req *req, const char *name, int *bad);

/* Every value of a repeatable query parameter, in order: a malloc'd
 * NULL-terminated array of borrowed strings (free only the array), or NULL
 * on ENOMEM. *BAD as for ag_query. */
const char **ag_query_all(const struct ag_req *req, const char *name, size_t *count, int *bad);

/* A malloc'd absolute form of PATH: "~" and "~/x" are $HOME-relative, as are
 * relative paths (the agent's own working directory means nothing to a
 * client); "." and ".." components and repeated slashes are resolved
 * lexically. NULL on ENOMEM or an empty PATH. */
char *ag_abs_path(const char *path);

/* Format a reason into MSG (SIZE bytes) and return -1, for checks that
 * report why they failed. */
int ag_msg_fail(char *msg, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Wall-clock milliseconds since the epoch, for event timestamps. */
int64_t ag_now_ms(void);

#endif
