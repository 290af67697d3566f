/* execd routes (specs/opensandbox/execd-api.yaml): rows for routes.c. */
#ifndef ALLOX_AGENT_ROUTES_EXECD_H
#define ALLOX_AGENT_ROUTES_EXECD_H

#include "agent/execd/execd_command.h"
#include "agent/execd/execd_dirs.h"
#include "agent/execd/execd_download.h"
#include "agent/execd/execd_file_routes.h"
#include "agent/execd/execd_metrics.h"
#include "agent/execd/execd_session_routes.h"
#include "agent/execd/execd_upload.h"

/* "/command/status/" before "/command/": the first matching row wins. */
#define AG_EXECD_ROUTES \
	{ "POST", "/command", AG_EXACT, ag_execd_run, AG_BODY_BUFFER, 0, NULL }, \
	{ "DELETE", "/command", AG_EXACT, ag_execd_interrupt, AG_BODY_NONE, 0, NULL }, \
	{ "GET", "/command/status/", AG_PREFIX, ag_execd_status, AG_BODY_NONE, 0, NULL }, \
	{ "GET", "/command/", AG_PREFIX, ag_execd_logs, AG_BODY_NONE, 0, NULL }, \
	{ "GET", "/files/info", AG_EXACT, ag_execd_files_info, AG_BODY_NONE, 0, NULL }, \
	{ "DELETE", "/files", AG_EXACT, ag_execd_files_delete, AG_BODY_NONE, 0, NULL }, \
	{ "GET", "/files/search", AG_EXACT, ag_execd_files_search, AG_BODY_NONE, 0, NULL }, \
	{ "POST", "/files/permissions", AG_EXACT, ag_execd_files_chmod, AG_BODY_BUFFER, 0, NULL }, \
	{ "POST", "/files/mv", AG_EXACT, ag_execd_files_mv, AG_BODY_BUFFER, 0, NULL }, \
	{ "POST", "/files/replace", AG_EXACT, ag_execd_files_replace, AG_BODY_BUFFER, 0, NULL }, \
	{ "POST", "/files/upload", AG_EXACT, ag_execd_upload, AG_BODY_STREAM, 0, ag_execd_upload_body }, \
	{ "GET", "/files/download", AG_EXACT, ag_execd_download, AG_BODY_NONE, 0, NULL }, \
	{ "GET", "/directories/list", AG_EXACT, ag_execd_dirs_list, AG_BODY_NONE, 0, NULL }, \
	{ "POST", "/directories", AG_EXACT, ag_execd_dirs_make, AG_BODY_BUFFER, 0, NULL }, \
	{ "DELETE", "/directories", AG_EXACT, ag_execd_dirs_remove, AG_BODY_NONE, 0, NULL }, \
	{ "POST", "/session", AG_EXACT, ag_execd_session_create, AG_BODY_BUFFER, 0, NULL }, \
	{ "POST", "/session/", AG_PREFIX, ag_execd_session_run, AG_BODY_BUFFER, 0, NULL }, \
	{ "DELETE", "/session/", AG_PREFIX, ag_execd_session_delete, AG_BODY_NONE, 0, NULL }, \
	{ "GET", "/metrics", AG_EXACT, ag_execd_metrics, AG_BODY_NONE, 0, NULL }, \
	{ "GET", "/metrics/watch", AG_EXACT, ag_execd_metrics_watch, AG_BODY_NONE, 0, NULL },

#endif
