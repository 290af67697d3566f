# src/lib: what every binary shares (errors, files, paths, time, HTTP client,
# TOML subset, configuration, session) and output/, the one renderer.
noinst_LIBRARIES += libaxlib.a
libaxlib_a_SOURCES = \
	src/lib/ax_error.c src/lib/ax_error.h \
	src/lib/base64.c src/lib/base64.h \
	src/lib/close_fds.c src/lib/close_fds.h \
	src/lib/conf.c src/lib/conf.h \
	src/lib/duration.c src/lib/duration.h \
	src/lib/fs.c src/lib/fs.h \
	src/lib/http.c src/lib/http.h src/lib/http_backend.h src/lib/http_native.c src/lib/http_curl.c \
	src/lib/http_retry.c src/lib/http_retry.h \
	src/lib/idcache.c src/lib/idcache.h \
	src/lib/imgsize.c src/lib/imgsize.h \
	src/lib/listen_gate.c src/lib/listen_gate.h \
	src/lib/mcp_name.c src/lib/mcp_name.h \
	src/lib/path.c src/lib/path.h \
	src/lib/quantity.c src/lib/quantity.h \
	src/lib/secret.c src/lib/secret.h \
	src/lib/session.c src/lib/session.h \
	src/lib/splice_copy.c src/lib/splice_copy.h \
	src/lib/suggest.c src/lib/suggest.h \
	src/lib/timeutil.c src/lib/timeutil.h \
	src/lib/toml.c src/lib/toml.h \
	src/lib/output.h \
	src/lib/output/output.c src/lib/output/output_internal.h \
	src/lib/output/output_table.c src/lib/output/output_yaml.c \
	src/lib/output/output_stream.c src/lib/output/output_progress.c \
	src/lib/output/output_jupyter.c src/lib/output/output_jupyter.h \
	src/lib/output/output_mcp.c src/lib/output/output_mcp.h
LIB_LIBS = $(JANSSON_LIBS) $(YAML_LIBS) $(HTTP_PARSER_LIBS) -lresolv -lm

# The servers' libmicrohttpd without GnuTLS (2 ms of every sandbox start):
# src/lib/tls_absent.c stands in for the TLS symbols it references.
TLS_ABSENT_SOURCES =
if MHD_STATIC
TLS_ABSENT_SOURCES += src/lib/tls_absent.c
endif
