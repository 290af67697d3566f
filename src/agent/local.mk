# src/agent: allox-agent, the execd and AIO runtime inside each sandbox.
# core/ is the server (routes, replies, auth, reaper, process spawning,
# supervision); execd/, aio/ and upload/ serve their APIs. ext/ is
# allox-agent-ext.so, dlopen()ed on the first request that needs Jupyter
# (ext/jupyter), the browser (ext/browser) or MCP (ext/mcp).
pkglibexec_PROGRAMS += allox-agent
# What the extension module calls in the agent: it carries its own -fPIC copies.
# The kernelspec reader is here too: the agent serves bash contexts itself
# while no kernel speaks bash (execd_code.h).
AGENT_SHARED_SOURCES = \
	src/agent/aio/aio_common.c src/agent/aio/aio_common.h \
	src/agent/aio/aio_id.c \
	src/agent/core/ag_error.c src/agent/core/ag_error.h \
	src/agent/core/log.c src/agent/core/log.h \
	src/agent/core/netwait.c src/agent/core/netwait.h \
	src/agent/core/proc_spawn.c src/agent/core/proc_spawn.h \
	src/agent/core/reaper.c src/agent/core/reaper.h \
	src/agent/core/reply.c \
	src/agent/execd/execd_error.c \
	src/agent/execd/execd_rmtree.c src/agent/execd/execd_rmtree.h \
	src/agent/ext/jupyter/jupyter_spec.c src/agent/ext/jupyter/jupyter_spec.h
AGENT_CORE_SOURCES = \
	src/agent/core/auth.c src/agent/core/auth.h \
	src/agent/core/console.c src/agent/core/console.h \
	src/agent/core/ext_loader.c src/agent/core/ext_loader.h \
	src/agent/core/ident.c src/agent/core/ident.h \
	src/agent/core/main.c \
	src/agent/core/route.h \
	src/agent/core/routes.c \
	src/agent/core/routes_basic.c src/agent/core/routes_basic.h \
	src/agent/core/routes_ext.h \
	src/agent/core/server.c src/agent/core/server.h \
	src/agent/core/supervise.c src/agent/core/supervise.h \
	src/agent/core/sysinfo.c src/agent/core/sysinfo.h
AGENT_EXECD_SOURCES = \
	src/agent/execd/execd_background.c src/agent/execd/execd_background.h \
	src/agent/execd/execd_code.c src/agent/execd/execd_code.h \
	src/agent/execd/execd_code_ctx.c \
	src/agent/execd/execd_command.c src/agent/execd/execd_command.h \
	src/agent/execd/execd_dirs.c src/agent/execd/execd_dirs.h \
	src/agent/execd/execd_download.c src/agent/execd/execd_download.h \
	src/agent/execd/execd_event.c src/agent/execd/execd_event.h \
	src/agent/execd/execd_file_routes.h \
	src/agent/execd/execd_fileinfo.c src/agent/execd/execd_fileinfo.h \
	src/agent/execd/execd_files.c \
	src/agent/execd/execd_http.c src/agent/execd/execd_http.h \
	src/agent/execd/execd_lines.c src/agent/execd/execd_lines.h \
	src/agent/execd/execd_metrics.c src/agent/execd/execd_metrics.h \
	src/agent/execd/execd_perm.c src/agent/execd/execd_perm.h \
	src/agent/execd/execd_proc.c src/agent/execd/execd_proc.h \
	src/agent/execd/execd_range.c src/agent/execd/execd_range.h \
	src/agent/execd/execd_registry.c src/agent/execd/execd_registry.h \
	src/agent/execd/execd_replace.c src/agent/execd/execd_replace.h \
	src/agent/execd/execd_session.c src/agent/execd/execd_session.h \
	src/agent/execd/execd_session_routes.h src/agent/execd/execd_session_run.c \
	src/agent/execd/execd_stream.c src/agent/execd/execd_stream.h \
	src/agent/execd/execd_upload.c src/agent/execd/execd_upload.h \
	src/agent/execd/routes_execd.h
AGENT_AIO_SOURCES = \
	src/agent/aio/aio_download.c \
	src/agent/aio/aio_file.c \
	src/agent/aio/aio_list.c \
	src/agent/aio/aio_output.c src/agent/aio/aio_output.h \
	src/agent/aio/aio_run.c src/agent/aio/aio_run.h \
	src/agent/aio/aio_session.c src/agent/aio/aio_session.h \
	src/agent/aio/aio_shell.c \
	src/agent/aio/aio_upload.c \
	src/agent/aio/routes_aio.h
AGENT_UPLOAD_SOURCES = \
	src/agent/upload/upload_sink.c src/agent/upload/upload_sink.h \
	src/agent/upload/upload_writer.c src/agent/upload/upload_writer.h
allox_agent_SOURCES = $(AGENT_CORE_SOURCES) $(AGENT_SHARED_SOURCES) $(AGENT_EXECD_SOURCES) $(AGENT_AIO_SOURCES) \
	$(AGENT_UPLOAD_SOURCES) $(TLS_ABSENT_SOURCES)
allox_agent_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS) -pthread
allox_agent_LDADD = libaxlib.a $(JANSSON_LIBS) $(MHD_SERVER_LIBS) -lresolv -lpthread

# Built as a "program" linked -shared, so no libtool is needed.
pkglibexec_PROGRAMS += allox-agent-ext.so
AGENT_JUPYTER_SOURCES = \
	src/agent/ext/jupyter/code_event.c src/agent/ext/jupyter/code_event.h \
	src/agent/ext/jupyter/code_routes.c src/agent/ext/jupyter/routes_code.h \
	src/agent/ext/jupyter/code_stream.c src/agent/ext/jupyter/code_stream.h \
	src/agent/ext/jupyter/jupyter.c src/agent/ext/jupyter/jupyter.h \
	src/agent/ext/jupyter/jupyter_channel.c src/agent/ext/jupyter/jupyter_channel.h \
	src/agent/ext/jupyter/jupyter_exec.c src/agent/ext/jupyter/jupyter_exec.h \
	src/agent/ext/jupyter/jupyter_kernel.c src/agent/ext/jupyter/jupyter_kernel.h \
	src/agent/ext/jupyter/jupyter_launch.c src/agent/ext/jupyter/jupyter_launch.h \
	src/agent/ext/jupyter/jupyter_outputs.c src/agent/ext/jupyter/jupyter_outputs.h \
	src/agent/ext/jupyter/jupyter_routes.c \
	src/agent/ext/jupyter/jupyter_wire.c src/agent/ext/jupyter/jupyter_wire.h \
	src/agent/ext/jupyter/routes_jupyter.h
AGENT_BROWSER_SOURCES = \
	src/agent/ext/browser/browser.c src/agent/ext/browser/browser.h \
	src/agent/ext/browser/browser_launch.c src/agent/ext/browser/browser_launch.h \
	src/agent/ext/browser/browser_routes.c \
	src/agent/ext/browser/cdp.c src/agent/ext/browser/cdp.h \
	src/agent/ext/browser/cdp_msg.c src/agent/ext/browser/cdp_msg.h \
	src/agent/ext/browser/cdp_relay.c src/agent/ext/browser/cdp_relay.h \
	src/agent/ext/browser/routes_browser.h
AGENT_MCP_SOURCES = \
	src/agent/ext/mcp/mcp.h \
	src/agent/ext/mcp/mcp_browser.c \
	src/agent/ext/mcp/mcp_builtin.c src/agent/ext/mcp/mcp_builtin.h \
	src/agent/ext/mcp/mcp_endpoint.c \
	src/agent/ext/mcp/mcp_hub.c \
	src/agent/ext/mcp/mcp_jsonrpc.c src/agent/ext/mcp/mcp_jsonrpc.h \
	src/agent/ext/mcp/mcp_routes.c \
	src/agent/ext/mcp/mcp_sandbox.c \
	src/agent/ext/mcp/mcp_session.c src/agent/ext/mcp/mcp_session.h \
	src/agent/ext/mcp/mcp_stdio.c src/agent/ext/mcp/mcp_stdio.h \
	src/agent/ext/mcp/routes_mcp.h
AGENT_EXT_SOURCES = \
	src/agent/ext/ext.h src/agent/ext/ext_module.c \
	src/agent/ext/ext_mhd.c src/agent/ext/ext_mhd.h \
	$(AGENT_JUPYTER_SOURCES) $(AGENT_BROWSER_SOURCES) $(AGENT_MCP_SOURCES)
allox_agent_ext_so_SOURCES = $(AGENT_EXT_SOURCES) $(AGENT_SHARED_SOURCES) \
	src/lib/ax_error.c src/lib/fs.c src/lib/base64.c src/lib/imgsize.c src/lib/mcp_name.c src/lib/secret.c \
	src/lib/splice_copy.c src/lib/timeutil.c
allox_agent_ext_so_CFLAGS = $(AM_CFLAGS) -fPIC -fvisibility=hidden $(MHD_CFLAGS) $(ZMQ_CFLAGS) $(CRYPTO_CFLAGS) \
	$(LWS_CFLAGS) -pthread
allox_agent_ext_so_LDFLAGS = -shared -Wl,-z,defs
allox_agent_ext_so_LDADD = $(JANSSON_LIBS) $(ZMQ_LIBS) $(CRYPTO_LIBS) $(LWS_LIBS) $(HTTP_PARSER_LIBS) -lresolv -lpthread
