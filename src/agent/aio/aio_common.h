/* AIO runtime routes (specs/aio-sandbox/openapi.json): shell exec and the
 * file API. Handlers are listed in routes_aio.h; the helpers below are what
 * they share: FastAPI-style request validation, FileOperationError replies
 * and JSON strings from arbitrary bytes. */
#ifndef ALLOX_AGENT_AIO_H
#define ALLOX_AGENT_AIO_H

#include <stdbool.h>
#include <stddef.h>

#include "agent/core/route.h"

/* Handlers (aio_shell.c, aio_file.c, aio_transfer.c, aio_list.c). */
enum MHD_Result aio_shell_exec(struct ag_req *req);
enum MHD_Result aio_shell_view(struct ag_req *req);
enum MHD_Result aio_shell_wait(struct ag_req *req);
enum MHD_Result aio_shell_kill(struct ag_req *req);
enum MHD_Result aio_file_read(struct ag_req *req);
enum MHD_Result aio_file_write(struct ag_req *req);
enum MHD_Result aio_file_upload(struct ag_req *req);
int aio_file_upload_body(struct ag_req *req, const char *data, size_t len);
enum MHD_Result aio_file_download(struct ag_req *req);
enum MHD_Result aio_file_list(struct ag_req *req);

/* A request's JSON body or query, checked field by field. Problems pile up
 * in DETAIL as FastAPI ValidationError items so one 422 names them all. */
struct aio_args {
	json_t *body;       /* the request object (NULL for a query) */
	json_t *detail;     /* NULL while every field was fine */
	const char *where;  /* "body" or "query": the first element of each loc */
};

/* Parse REQ's body as a JSON object. Always fills A; check aio_args_ok. */
void aio_args_body(struct ag_req *req, struct aio_args *a);
void aio_args_free(struct aio_args *a);
bool aio_args_ok(const struct aio_args *a);
/* Record a problem with KEY (NULL: the body itself). */
void aio_args_invalid(struct aio_args *a, const char *key, const char *type, const char *msg);

/* Field getters: absent and null give the default (or NULL / false). */
const char *aio_arg_str(struct aio_args *a, const char *key, bool required);
bool aio_arg_bool(struct aio_args *a, const char *key, bool dflt);
/* True with *OUT set when KEY holds a number. */
bool aio_arg_num(struct aio_args *a, const char *key, double *out);
bool aio_arg_int(struct aio_args *a, const char *key, long long *out);

/* 422 {"success":false,"message":"...","detail":[...]} */
enum MHD_Result aio_reply_invalid(struct ag_req *req, struct aio_args *a);

/* FileOperationError {path, operation, message, error_type, retryable, errno,
 * errno_name, exception_type}. ERROR_TYPE NULL derives it from ERRNUM; an
 * ERRNUM of 0 leaves errno and errno_name null. */
json_t *aio_file_error(const char *path, const char *operation, const char *error_type, int errnum,
		       const char *message);
/* A failed file operation the way AIO 1.x reports it: HTTP 200 with
 * success false and the FileOperationError as data. */
enum MHD_Result aio_reply_file_error(struct ag_req *req, const char *path, const char *operation,
				     const char *error_type, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* The same from errno after a failed system call on PATH. */
enum MHD_Result aio_reply_errno(struct ag_req *req, const char *path, const char *operation, int errnum);

/* A JSON string holding LEN bytes of S; invalid UTF-8 becomes U+FFFD, as
 * Python's errors="replace" would. NULL only on ENOMEM. */
json_t *aio_json_bytes(const char *s, size_t len);
/* The length of the valid UTF-8 sequence at S (at most N bytes), 0 if none. */
size_t aio_utf8_seq(const unsigned char *s, size_t n);
bool aio_utf8_valid(const char *s, size_t len);

/* mkdir -p of PATH's directory, mode 0777 less the umask. 0, or -1 with errno. */
int aio_mkdir_parents(const char *path);
/* Is PATH absolute? File routes take no relative paths: the agent's own
 * working directory means nothing to a client. */
bool aio_path_ok(const char *path);

#endif
