# Programs the shell tests drive: they stand in for peers or reach into one
# part of the engine or the agent.
check_PROGRAMS += tests/helpers/listen_fd tests/engine/rt_test tests/helpers/cdp_eval tests/helpers/browser_api \
	tests/helpers/mcp_probe tests/helpers/fake_http tests/helpers/layer_copy tests/helpers/seccomp_dump \
	tests/helpers/hold_conns
tests_helpers_listen_fd_SOURCES = tests/helpers/listen_fd.c
tests_helpers_fake_http_SOURCES = tests/helpers/fake_http.c
tests_helpers_hold_conns_SOURCES = tests/helpers/hold_conns.c
tests_engine_rt_test_SOURCES = tests/engine/rt_test.c $(ENGINE_RUNTIME_SOURCES)
tests_engine_rt_test_CPPFLAGS = $(AM_CPPFLAGS) $(ENGINE_RUNTIME_CFLAGS)
tests_engine_rt_test_LDADD = $(ENGINE_RUNTIME_LIBS)
# The engine's in-process checkpoint copy, timed against cp -a by tests/cli/layer_copy.sh.
tests_helpers_layer_copy_SOURCES = tests/helpers/layer_copy.c src/engine/layers.c $(ENGINE_RUNTIME_SOURCES)
tests_helpers_layer_copy_CPPFLAGS = $(AM_CPPFLAGS) $(JANSSON_CFLAGS) $(ENGINE_RUNTIME_CFLAGS)
tests_helpers_layer_copy_LDADD = $(ENGINE_RUNTIME_LIBS)
# A sandbox's filter as a file, for trying it by hand: bwrap --seccomp 3 ... 3<FILE.
tests_helpers_seccomp_dump_SOURCES = tests/helpers/seccomp_dump.c src/engine/runtime/seccomp_filter.c \
	src/lib/ax_error.c
tests_helpers_seccomp_dump_CPPFLAGS = $(AM_CPPFLAGS) $(SECCOMP_CFLAGS)
tests_helpers_seccomp_dump_LDADD = $(SECCOMP_LIBS)
# A host-side CDP client and the browser API without the agent's server.
tests_helpers_cdp_eval_SOURCES = tests/helpers/cdp_eval.c src/agent/ext/browser/cdp.c src/agent/ext/browser/cdp_msg.c
tests_helpers_cdp_eval_CFLAGS = $(AM_CFLAGS) $(CRYPTO_CFLAGS) $(LWS_CFLAGS)
tests_helpers_cdp_eval_LDADD = $(JANSSON_LIBS) $(CRYPTO_LIBS) $(LWS_LIBS)
tests_helpers_browser_api_SOURCES = tests/helpers/browser_api.c src/agent/ext/browser/browser.c \
	src/agent/ext/browser/browser_launch.c src/agent/ext/browser/cdp.c src/agent/ext/browser/cdp_msg.c \
	src/agent/core/reaper.c src/agent/core/proc_spawn.c src/agent/core/netwait.c \
	src/agent/execd/execd_rmtree.c src/agent/core/log.c src/agent/core/ag_error.c
tests_helpers_browser_api_CFLAGS = $(AM_CFLAGS) $(CRYPTO_CFLAGS) $(LWS_CFLAGS) -pthread
tests_helpers_browser_api_LDADD = libaxlib.a $(JANSSON_LIBS) $(CRYPTO_LIBS) $(LWS_LIBS) -lresolv -lpthread
tests_helpers_mcp_probe_SOURCES = tests/helpers/mcp_probe.c
tests_helpers_mcp_probe_LDADD = libaxapi.a libaxlib.a $(LIB_LIBS)
