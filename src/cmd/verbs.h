/* Verbs whose handlers live in another file than their group's list. */
#ifndef ALLOX_CMD_VERBS_H
#define ALLOX_CMD_VERBS_H

#include "cmd/command.h"

/* aio (aio.c) */
extern const ax_command_spec ax_aio_jupyter_run_verb;   /* aio_jupyter.c */
extern const ax_command_spec ax_aio_browser_info_verb;  /* aio_browser.c */
extern const ax_command_spec ax_aio_screenshot_verb;
extern const ax_command_spec ax_aio_mcp_servers_verb;   /* aio_mcp.c */
extern const ax_command_spec ax_aio_mcp_tools_verb;
extern const ax_command_spec ax_aio_mcp_call_verb;

/* file (file.c) */
extern const ax_command_spec ax_file_upload_verb;       /* file_upload.c */
extern const ax_command_spec ax_file_download_verb;     /* file_download.c */
extern const ax_command_spec ax_file_ls_verb;           /* file_ls.c */

#endif
