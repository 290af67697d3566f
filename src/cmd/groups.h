/*
 * The command groups src/cmd defines, each in its own file beside its
 * handlers. A program lists the ones it offers in its registry
 * (src/cli/registry.h); help shows them in that order.
 */
#ifndef ALLOX_CMD_GROUPS_H
#define ALLOX_CMD_GROUPS_H

#include "cmd/command.h"

extern const ax_group_spec ax_group_sandbox;     /* sandbox.c */
extern const ax_group_spec ax_group_session;     /* session.c */
extern const ax_group_spec ax_group_aio;         /* aio.c, aio_jupyter.c, aio_browser.c, aio_mcp.c */
extern const ax_group_spec ax_group_run;         /* run.c */
extern const ax_group_spec ax_group_file;        /* file.c, file_upload.c, file_download.c, file_ls.c */
extern const ax_group_spec ax_group_checkpoint;  /* checkpoint.c */
extern const ax_group_spec ax_group_config;      /* config.c */

#endif
