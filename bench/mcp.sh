#!/bin/bash
# MCP in a sandbox: `aio mcp call` round trips next to `run -- true` (the
# cost of any call): a built-in tool (in the agent), a stdio server's tool
# once warm (the fixture server of tests/cli/mcp.sh, in Python), and that
# server's first call (process start + initialize handshake, one sample).
# Target: a warm call under 20 ms beyond `run -- true`.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
: "${ALLOX_CLI:?}"
N=${BENCH_N:-10}
bench_home

cat >"$ALLOX_HOME/config.toml" <<'TOML'
[mcp.servers.fixture]
command = ["python3", "/home/gem/mcp_fixture.py"]
TOML
"$ALLOX_CLI" sandbox create >/dev/null || exit 1
"$ALLOX_CLI" file upload "$here/../tests/cli/mcp_fixture.py" /home/gem/mcp_fixture.py >/dev/null || exit 1

"$ALLOX_CLI" run -- true >/dev/null || exit 1

t0=$EPOCHREALTIME
"$ALLOX_CLI" aio mcp call fixture noisy >/dev/null || { echo "bench: first call failed" >&2; exit 1; }
t1=$EPOCHREALTIME
ms_between "$t0" "$t1" >"$work/first"

run_true() { "$ALLOX_CLI" run -- true; }
stdio() { "$ALLOX_CLI" aio mcp call fixture noisy; }
builtin() { "$ALLOX_CLI" aio mcp call sandbox sandbox_get_context; }
time_alt "$N" "$work/run" run_true "$work/stdio" stdio "$work/builtin" builtin || exit 1

r="run -- true"
bench_row "run -- true (the cost of any call)" ms "$work/run"
bench_row "mcp call, built-in tool" ms "$work/builtin" "$r" "$work/run" "beyond<20"
bench_row "mcp call, stdio server, warm" ms "$work/stdio" "$r" "$work/run" "beyond<20"
bench_row "mcp call, stdio server, first" ms "$work/first" "$r" "$work/run"
