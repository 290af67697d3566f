#!/bin/sh
# README's main job, examples/agent-workflow.sh, exactly as a user runs it:
# demos 1, 2 and 4 of the seed README on the embedded local engine.
. "${TESTS_DIR:-tests}/cli/lib.sh"

t "examples/agent-workflow.sh runs to the end"
run env ALLOX_CLI="$ALLOX_CLI" ALLOX_HOME="$ALLOX_HOME" sh "$TESTS_DIR/../examples/agent-workflow.sh"
expect_rc 0
expect_out_has "agent-workflow: ok"
expect_out_has "hello from allox"
expect_out_has "Hello from MCP"
grep -qx v1 "$TMP/out" || fail "the restored sandbox did not read v1"

done_testing
