# Shell tests of the real binaries against a real local engine, each in its
# own temporary ALLOX_HOME, and the conformance tests against the official specs.
SHELL_TESTS += \
	tests/cli/help.sh \
	tests/cli/usage.sh \
	tests/cli/config.sh \
	tests/cli/session.sh \
	tests/cli/output.sh \
	tests/cli/agent.sh \
	tests/cli/agent_aio.sh \
	tests/cli/agent_execd.sh \
	tests/cli/execd_ids.sh \
	tests/cli/execd_sessions.sh \
	tests/cli/execd_code.sh \
	tests/cli/agent_jupyter.sh \
	tests/cli/runtime.sh \
	tests/cli/sandbox.sh \
	tests/cli/limits.sh \
	tests/cli/isolation.sh \
	tests/cli/network.sh \
	tests/cli/console_log.sh \
	tests/cli/run.sh \
	tests/cli/workflow.sh \
	tests/cli/file.sh \
	tests/cli/checkpoint.sh \
	tests/cli/jupyter.sh \
	tests/cli/shell.sh \
	tests/cli/tui.sh \
	tests/conformance/lifecycle.sh \
	tests/conformance/runtime.sh \
	tests/conformance/sdk.sh \
	tests/cli/browser.sh \
	tests/cli/bench_harness.sh \
	tests/cli/docs.sh \
	tests/cli/completion.sh \
	tests/cli/mcp.sh \
	tests/cli/http.sh \
	tests/cli/faults.sh \
	tests/cli/agent_ext.sh \
	tests/cli/churn.sh \
	tests/cli/access.sh \
	tests/cli/ci.sh \
	tests/cli/hostile.sh \
	tests/cli/escape.sh \
	tests/cli/layer_copy.sh \
	tests/cli/listeners.sh \
	tests/cli/egress.sh
EXTRA_DIST += $(SHELL_TESTS) tests/cli/lib.sh tests/cli/agent_lib.sh tests/cli/engine_lib.sh tests/golden \
	tests/cli/man_entries.awk tests/cli/completion.bash tests/cli/completion.zsh tests/cli/completion.fish \
	tests/cli/mcp_fixture.py tests/cli/mcp_node_closure.js tests/cli/mcp_sdk_client.mjs \
	tests/cli/http_fixture.py tests/cli/hostile_server.py tests/cli/tree_compare.py \
	tests/conformance/package.json tests/conformance/package-lock.json \
	tests/conformance/sandbox-lifecycle.yml tests/conformance/README.md \
	tests/conformance/execd-api.yaml tests/conformance/aio-sandbox-openapi.json tests/conformance/lib.sh \
	tests/conformance/opensandbox-js-e2e tests/conformance/sdk/package.json \
	tests/conformance/sdk/package-lock.json tests/conformance/sdk/allox_sdk.test.mjs \
	tests/conformance/sdk/verdict.mjs tests/conformance/sdk/seed_volumes.mjs
