# cmocka unit tests of src/lib, the parsers and the decoders. Most link the
# client's archives below ui (only the shell's own tests link ui/, ncurses
# and readline); the rest name the few sources they test.
UNIT_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
UNIT_LDADD = $(CLIENT_ARCHIVES) $(LIB_LIBS) $(CRYPTO_LIBS) $(CMOCKA_LIBS)
UNIT_UI_LDADD = libaxui.a $(UNIT_LDADD) $(NCURSES_LIBS) $(READLINE_LIBS)
# Tests of the client's libraries: tests/unit/test_NAME.c against $(UNIT_LDADD).
UNIT_TESTS += \
	tests/unit/test_api_decode \
	tests/unit/test_ax_error \
	tests/unit/test_complete \
	tests/unit/test_conf \
	tests/unit/test_duration \
	tests/unit/test_execd_events \
	tests/unit/test_http \
	tests/unit/test_http_retry \
	tests/unit/test_idcache \
	tests/unit/test_imgsize \
	tests/unit/test_jupyter_show \
	tests/unit/test_listen_gate \
	tests/unit/test_mcp_cli \
	tests/unit/test_output \
	tests/unit/test_parse \
	tests/unit/test_quantity \
	tests/unit/test_secret \
	tests/unit/test_session \
	tests/unit/test_timeutil \
	tests/unit/test_toml \
	tests/unit/test_tui_complete \
	tests/unit/test_tui_keymap
tests_unit_test_api_decode_LDADD = $(UNIT_LDADD)
tests_unit_test_api_decode_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_ax_error_LDADD = $(UNIT_LDADD)
tests_unit_test_ax_error_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_complete_LDADD = $(UNIT_LDADD)
tests_unit_test_complete_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_conf_LDADD = $(UNIT_LDADD)
tests_unit_test_conf_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_duration_LDADD = $(UNIT_LDADD)
tests_unit_test_duration_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_execd_events_LDADD = $(UNIT_LDADD)
tests_unit_test_execd_events_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_http_LDADD = $(UNIT_LDADD)
tests_unit_test_http_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_http_retry_LDADD = $(UNIT_LDADD)
tests_unit_test_http_retry_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_idcache_LDADD = $(UNIT_LDADD)
tests_unit_test_idcache_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_imgsize_LDADD = $(UNIT_LDADD)
tests_unit_test_imgsize_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_jupyter_show_LDADD = $(UNIT_LDADD)
tests_unit_test_jupyter_show_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_listen_gate_LDADD = $(UNIT_LDADD) -lpthread
tests_unit_test_listen_gate_CFLAGS = $(UNIT_CFLAGS) -pthread
tests_unit_test_mcp_cli_LDADD = $(UNIT_LDADD)
tests_unit_test_mcp_cli_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_output_LDADD = $(UNIT_LDADD)
tests_unit_test_output_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_parse_LDADD = $(UNIT_LDADD)
tests_unit_test_parse_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_quantity_LDADD = $(UNIT_LDADD)
tests_unit_test_quantity_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_secret_LDADD = $(UNIT_LDADD)
tests_unit_test_secret_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_session_LDADD = $(UNIT_LDADD)
tests_unit_test_session_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_timeutil_LDADD = $(UNIT_LDADD)
tests_unit_test_timeutil_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_toml_LDADD = $(UNIT_LDADD)
tests_unit_test_toml_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_tui_complete_LDADD = $(UNIT_UI_LDADD)
tests_unit_test_tui_complete_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_tui_keymap_LDADD = $(UNIT_UI_LDADD)
tests_unit_test_tui_keymap_CFLAGS = $(UNIT_CFLAGS) $(NCURSES_CFLAGS)

# The renderer alone.
UNIT_TESTS += tests/unit/test_progress
tests_unit_test_progress_LDADD = libaxlib.a $(LIB_LIBS) $(CMOCKA_LIBS)
tests_unit_test_progress_CFLAGS = $(UNIT_CFLAGS)

# Tests that compile the sources they test.
UNIT_TESTS += tests/unit/test_tui_layout tests/unit/test_tui_outbuf tests/unit/test_tui_split
tests_unit_test_tui_layout_SOURCES = tests/unit/test_tui_layout.c ui/layout.c
tests_unit_test_tui_layout_LDADD = $(CMOCKA_LIBS)
tests_unit_test_tui_layout_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_tui_outbuf_SOURCES = tests/unit/test_tui_outbuf.c ui/outbuf.c
tests_unit_test_tui_outbuf_LDADD = $(CMOCKA_LIBS)
tests_unit_test_tui_outbuf_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_tui_split_SOURCES = tests/unit/test_tui_split.c ui/split.c src/lib/ax_error.c
tests_unit_test_tui_split_LDADD = $(CMOCKA_LIBS)
tests_unit_test_tui_split_CFLAGS = $(UNIT_CFLAGS)

UNIT_TESTS += tests/unit/test_jupyter_wire tests/unit/test_cdp_msg tests/unit/test_mcp_jsonrpc
tests_unit_test_jupyter_wire_SOURCES = tests/unit/test_jupyter_wire.c src/agent/ext/jupyter/jupyter_wire.c \
	src/agent/ext/jupyter/jupyter_outputs.c
tests_unit_test_jupyter_wire_LDADD = $(JANSSON_LIBS) $(CRYPTO_LIBS) $(CMOCKA_LIBS)
tests_unit_test_jupyter_wire_CFLAGS = $(UNIT_CFLAGS) $(CRYPTO_CFLAGS)
tests_unit_test_cdp_msg_SOURCES = tests/unit/test_cdp_msg.c src/agent/ext/browser/cdp_msg.c
tests_unit_test_cdp_msg_LDADD = libaxlib.a $(JANSSON_LIBS) $(CRYPTO_LIBS) -lresolv $(CMOCKA_LIBS)
tests_unit_test_cdp_msg_CFLAGS = $(UNIT_CFLAGS) $(CRYPTO_CFLAGS)
tests_unit_test_mcp_jsonrpc_SOURCES = tests/unit/test_mcp_jsonrpc.c src/agent/ext/mcp/mcp_jsonrpc.c \
	src/agent/ext/mcp/mcp_session.c
tests_unit_test_mcp_jsonrpc_LDADD = $(UNIT_LDADD)
tests_unit_test_mcp_jsonrpc_CFLAGS = $(UNIT_CFLAGS)

UNIT_TESTS += tests/unit/test_disk_detach tests/unit/test_egress tests/unit/test_seccomp_filter tests/unit/test_untrusted \
	tests/unit/test_engine_route tests/unit/test_host_path
tests_unit_test_host_path_SOURCES = tests/unit/test_host_path.c src/engine/host_path.c src/engine/wire_error.c
tests_unit_test_host_path_LDADD = $(UNIT_LDADD) $(JANSSON_LIBS)
tests_unit_test_host_path_CFLAGS = $(UNIT_CFLAGS) $(MHD_CFLAGS)
tests_unit_test_engine_route_SOURCES = tests/unit/test_engine_route.c src/engine/route.c src/engine/wire_error.c
tests_unit_test_engine_route_LDADD = $(UNIT_LDADD) $(JANSSON_LIBS)
tests_unit_test_engine_route_CFLAGS = $(UNIT_CFLAGS) $(MHD_CFLAGS)
tests_unit_test_disk_detach_SOURCES = tests/unit/test_disk_detach.c src/engine/runtime/disk_detach.c
tests_unit_test_disk_detach_LDADD = $(UNIT_LDADD)
tests_unit_test_disk_detach_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_egress_SOURCES = tests/unit/test_egress.c src/engine/egress/egress_policy.c \
	src/engine/egress/egress_dns.c src/engine/egress/egress_upstream.c
tests_unit_test_egress_LDADD = $(UNIT_LDADD) $(JANSSON_LIBS) -lresolv
tests_unit_test_egress_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_seccomp_filter_SOURCES = tests/unit/test_seccomp_filter.c src/engine/runtime/seccomp_filter.c \
	src/lib/ax_error.c
tests_unit_test_seccomp_filter_CFLAGS = $(UNIT_CFLAGS) $(SECCOMP_CFLAGS) -pthread
tests_unit_test_seccomp_filter_LDADD = $(SECCOMP_LIBS) $(CMOCKA_LIBS) -lpthread
tests_unit_test_untrusted_SOURCES = tests/unit/test_untrusted.c src/engine/runtime/untrusted.c
tests_unit_test_untrusted_LDADD = $(UNIT_LDADD)
tests_unit_test_untrusted_CFLAGS = $(UNIT_CFLAGS)

# The servers' libmicrohttpd without GnuTLS.
if MHD_STATIC
UNIT_TESTS += tests/unit/test_tls_absent
tests_unit_test_tls_absent_SOURCES = tests/unit/test_tls_absent.c src/lib/tls_absent.c
tests_unit_test_tls_absent_LDADD = $(MHD_SERVER_LIBS) $(CMOCKA_LIBS)
tests_unit_test_tls_absent_CFLAGS = $(UNIT_CFLAGS) $(MHD_CFLAGS) -pthread
endif

if HAVE_CMOCKA
check_PROGRAMS += $(UNIT_TESTS)
endif
