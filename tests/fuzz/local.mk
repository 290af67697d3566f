# libFuzzer targets (clang): make fuzz [FUZZ_SECONDS=60]. Each runs from its
# committed seed corpus in tests/fuzz/corpus/NAME; new inputs go to
# fuzz-work/NAME, crashes to fuzz-work/crash-NAME-*.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS = toml duration path events lifecycle runtime mcp multipart
FUZZ_CFLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -D_GNU_SOURCE \
	-I$(top_builddir) -I$(top_srcdir)/src -I$(top_srcdir)/tests/fuzz $(JANSSON_CFLAGS)
FUZZ_HTTP_SRC = src/lib/http.c src/lib/http_native.c src/lib/http_curl.c src/lib/http_retry.c
FUZZ_HTTP_LIBS = $(HTTP_PARSER_LIBS) -lresolv -ldl $(CRYPTO_LIBS)
fuzz_toml_SRC = src/lib/toml.c src/lib/ax_error.c
fuzz_duration_SRC = src/lib/duration.c src/lib/ax_error.c
fuzz_path_SRC = src/lib/path.c
fuzz_events_SRC = src/api/execd_events.c src/lib/ax_error.c
fuzz_lifecycle_SRC = src/api/lifecycle_decode.c src/lib/ax_error.c
fuzz_runtime_SRC = src/api/aio_call.c src/api/execd_files.c src/lib/output/output_jupyter.c src/lib/ax_error.c \
	src/lib/base64.c src/lib/fs.c $(FUZZ_HTTP_SRC)
fuzz_runtime_LIBS = $(FUZZ_HTTP_LIBS)
fuzz_mcp_SRC = src/api/mcp_client.c src/api/mcp_http.c src/lib/output/output_mcp.c src/lib/ax_error.c \
	src/lib/base64.c src/lib/fs.c $(FUZZ_HTTP_SRC)
fuzz_mcp_LIBS = $(FUZZ_HTTP_LIBS)
# MHD's form parser without its daemon and connection code (the target
# answers the one lookup it makes): three objects of libmicrohttpd.a.
fuzz_multipart_SRC = src/agent/upload/upload_sink.c src/agent/upload/upload_writer.c src/lib/fs.c src/lib/ax_error.c
fuzz_multipart_OBJS = libmicrohttpd_la-postprocessor.o libmicrohttpd_la-internal.o libmicrohttpd_la-mhd_str.o
fuzz_multipart_PREPARE = mkdir -p fuzz-work/mhd && (cd fuzz-work/mhd && \
	ar x "$$(pkg-config --variable=libdir libmicrohttpd)/libmicrohttpd.a" $(fuzz_multipart_OBJS))
fuzz_multipart_LIBS = fuzz-work/mhd/libmicrohttpd_la-postprocessor.o fuzz-work/mhd/libmicrohttpd_la-internal.o \
	fuzz-work/mhd/libmicrohttpd_la-mhd_str.o
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		$(foreach t,$(FUZZ_TARGETS),src_$(t)='$(fuzz_$(t)_SRC)'; libs_$(t)='$(fuzz_$(t)_LIBS)';) \
		eval src=\$$src_$$t libs=\$$libs_$$t; \
		files=""; for f in $$src; do files="$$files $(top_srcdir)/$$f"; done; \
		if [ $$t = multipart ]; then $(fuzz_multipart_PREPARE); fi; \
		clang $(FUZZ_CFLAGS) $$files $(top_srcdir)/tests/fuzz/fuzz_$$t.c $$libs $(JANSSON_LIBS) -o fuzz_$$t; \
		mkdir -p fuzz-work/$$t; \
		echo "fuzz_$$t: $(FUZZ_SECONDS) s"; \
		./fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -print_final_stats=1 \
			-artifact_prefix=fuzz-work/crash-$$t- fuzz-work/$$t $(top_srcdir)/tests/fuzz/corpus/$$t \
			2>fuzz-work/$$t.log || { tail -40 fuzz-work/$$t.log; exit 1; }; \
		grep -E 'stat::number_of_executed_units|Done' fuzz-work/$$t.log | tr '\n' ' '; echo; \
	done
.PHONY: fuzz
CLEANFILES += $(FUZZ_TARGETS:%=fuzz_%)
EXTRA_DIST += tests/fuzz
