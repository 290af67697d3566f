#!/bin/sh
# MCP in a sandbox: `aio mcp call` round trips, medians, next to `run -- true`
# (the cost of any call): a built-in tool (in the agent), a stdio server's
# tool once warm (the fixture server of tests/cli/mcp.sh, in Python), and
# that server's first call (process start + initialize handshake). Target:
# a warm call under 20 ms beyond `run -- true`.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
: "${ALLOX_CLI:?}"
N=${BENCH_N:-20}
bench_home

cat > "$ALLOX_HOME/config.toml" <<'TOML'
[mcp.servers.fixture]
command = ["python3", "/home/gem/mcp_fixture.py"]
TOML
"$ALLOX_CLI" sandbox create >/dev/null || exit 1
"$ALLOX_CLI" file upload "$here/../tests/cli/mcp_fixture.py" /home/gem/mcp_fixture.py >/dev/null || exit 1

time_n "$N" "$work/run" "$ALLOX_CLI" run -- true || exit 1

t0=$(now_ns)
"$ALLOX_CLI" aio mcp call fixture noisy >/dev/null || { echo "bench: first call failed" >&2; exit 1; }
t1=$(now_ns)
first=$(echo "scale=3; ($t1 - $t0) / 1000000" | bc)

time_n "$N" "$work/stdio" "$ALLOX_CLI" aio mcp call fixture noisy || exit 1
time_n "$N" "$work/builtin" "$ALLOX_CLI" aio mcp call sandbox sandbox_get_context || exit 1

run_ms=$(median "$work/run")
stdio=$(median "$work/stdio")
builtin=$(median "$work/builtin")

echo "allox-cli MCP benchmark (medians of $N calls; $(nproc) cores, $(uname -r))"
row "benchmark" "median" "run -- true" "beyond" "target"
row "run -- true" "${run_ms} ms" "" "" ""
row "mcp call, built-in tool" "${builtin} ms" "${run_ms} ms" "$(echo "scale=3; $builtin - $run_ms" | bc) ms" "< 20 ms beyond"
row "mcp call, stdio server, warm" "${stdio} ms" "${run_ms} ms" "$(echo "scale=3; $stdio - $run_ms" | bc) ms" "< 20 ms beyond"
row "mcp call, stdio server, first" "${first} ms" "" "" "(one sample)"
