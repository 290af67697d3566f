/* AIO runtime routes (specs/aio-sandbox/openapi.json): rows for routes.c. */
#ifndef ALLOX_AGENT_ROUTES_AIO_H
#define ALLOX_AGENT_ROUTES_AIO_H

#include "agent/aio/aio_common.h"

/* base64 makes a binary write a third larger; bigger files go by upload. */
#define AG_AIO_WRITE_MAX ((size_t)64 << 20)

#define AG_AIO_ROUTES \
	{ "POST", "/v1/shell/exec", AG_EXACT, aio_shell_exec, AG_BODY_BUFFER, 0, NULL }, \
	{ "POST", "/v1/shell/view", AG_EXACT, aio_shell_view, AG_BODY_BUFFER, 0, NULL }, \
	{ "POST", "/v1/shell/wait", AG_EXACT, aio_shell_wait, AG_BODY_BUFFER, 0, NULL }, \
	{ "POST", "/v1/shell/kill", AG_EXACT, aio_shell_kill, AG_BODY_BUFFER, 0, NULL }, \
	{ "POST", "/v1/file/read", AG_EXACT, aio_file_read, AG_BODY_BUFFER, 0, NULL }, \
	{ "POST", "/v1/file/write", AG_EXACT, aio_file_write, AG_BODY_BUFFER, AG_AIO_WRITE_MAX, NULL }, \
	{ "POST", "/v1/file/upload", AG_EXACT, aio_file_upload, AG_BODY_STREAM, 0, aio_file_upload_body }, \
	{ "GET", "/v1/file/download", AG_EXACT, aio_file_download, AG_BODY_NONE, 0, NULL }, \
	{ "POST", "/v1/file/list", AG_EXACT, aio_file_list, AG_BODY_BUFFER, 0, NULL },

#endif
