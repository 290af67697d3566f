# src/api: clients of the planes (lifecycle, execd, AIO, MCP) and their decoders.
noinst_LIBRARIES += libaxapi.a
libaxapi_a_SOURCES = \
	src/api/aio_browser.c src/api/aio_browser.h \
	src/api/aio_call.c src/api/aio_call.h \
	src/api/execd_command.c src/api/execd_command.h \
	src/api/execd_events.c src/api/execd_events.h \
	src/api/execd_files.c src/api/execd_files.h \
	src/api/lifecycle.c src/api/lifecycle.h \
	src/api/lifecycle_decode.c src/api/lifecycle_decode.h \
	src/api/local.c \
	src/api/mcp_client.c src/api/mcp_client.h \
	src/api/mcp_http.c src/api/mcp_http.h \
	src/api/runtime.c src/api/runtime.h
