# src/cmd: the command table's types (command.h) and the command groups, each
# in its own file with its table entries beside its handlers, which return
# data for the renderer. Nothing here names src/cli or ui.
noinst_LIBRARIES += libaxcmd.a
libaxcmd_a_CPPFLAGS = $(AM_CPPFLAGS) $(CRYPTO_CFLAGS)
libaxcmd_a_SOURCES = \
	src/cmd/command.h src/cmd/groups.h src/cmd/verbs.h src/cmd/target.h \
	src/cmd/args.c \
	src/cmd/common.c src/cmd/common.h \
	src/cmd/positionals.c \
	src/cmd/aio.c \
	src/cmd/aio_browser.c \
	src/cmd/aio_jupyter.c \
	src/cmd/aio_mcp.c \
	src/cmd/aio_stream.c src/cmd/aio_stream.h \
	src/cmd/checkpoint.c src/cmd/checkpoint_core.c src/cmd/checkpoint.h \
	src/cmd/config.c \
	src/cmd/file.c \
	src/cmd/file_common.c src/cmd/file_common.h \
	src/cmd/file_download.c \
	src/cmd/file_ls.c \
	src/cmd/file_tree.c src/cmd/file_tree.h \
	src/cmd/file_upload.c \
	src/cmd/hook.c src/cmd/hook.h \
	src/cmd/mcp_config.c src/cmd/mcp_config.h \
	src/cmd/run.c \
	src/cmd/sandbox.c src/cmd/sandbox_policy.c src/cmd/sandbox_policy.h \
	src/cmd/session.c
