#!/bin/sh
# Sandbox lifecycle on the local engine: create-to-ready and kill against the
# bubblewrap floor, and the engine's and agents' memory with 20 sandboxes.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
: "${ALLOX_CLI:?}"
N=${BENCH_N:-20}
export ALLOX_HOME="$(mktemp -d /tmp/allox-bench.XXXXXX)"
trap '"$ALLOX_CLI" sandbox list -o raw 2>/dev/null | cut -f1 | while read -r id; do "$ALLOX_CLI" sandbox kill "$id" >/dev/null 2>&1; done; kill "$(cat "$ALLOX_HOME/run/engine.pid" 2>/dev/null)" 2>/dev/null; rm -rf "$ALLOX_HOME"' EXIT

"$ALLOX_CLI" sandbox list >/dev/null || exit 1   # start the engine outside the timings

time_n "$N" "$ALLOX_HOME/floor" bwrap --ro-bind / / --unshare-all --share-net --proc /proc --dev /dev true || exit 1

: > "$ALLOX_HOME/create"
: > "$ALLOX_HOME/kill"
i=0
while [ "$i" -lt "$N" ]; do
	t0=$(now_ns)
	id=$("$ALLOX_CLI" sandbox create -o json | jq -r .id) || exit 1
	t1=$(now_ns)
	"$ALLOX_CLI" sandbox kill "$id" >/dev/null || exit 1
	t2=$(now_ns)
	echo "scale=3; ($t1 - $t0) / 1000000" | bc >> "$ALLOX_HOME/create"
	echo "scale=3; ($t2 - $t1) / 1000000" | bc >> "$ALLOX_HOME/kill"
	i=$((i + 1))
done

floor=$(median "$ALLOX_HOME/floor")
create=$(median "$ALLOX_HOME/create")
kill_ms=$(median "$ALLOX_HOME/kill")

i=0
while [ "$i" -lt 20 ]; do
	"$ALLOX_CLI" sandbox create >/dev/null || exit 1
	i=$((i + 1))
done
engine_kib=$(rss_kib "$(cat "$ALLOX_HOME/run/engine.pid")")
: > "$ALLOX_HOME/agents"
for rec in "$ALLOX_HOME"/engine/sandboxes/*/record.json; do
	rss_kib "$(jq -r .runtime.initPid "$rec")" >> "$ALLOX_HOME/agents"
done
agent_kib=$(median "$ALLOX_HOME/agents")
agent_max=$(sort -n "$ALLOX_HOME/agents" | tail -n 1)

echo "allox-cli lifecycle benchmark (median of $N runs, $(nproc) cores, $(uname -r))"
row "benchmark" "median" "floor" "ratio" "target"
row "bwrap floor (true)" "${floor} ms" "" "" ""
row "sandbox create (to ready)" "${create} ms" "${floor} ms" "$(echo "scale=2; $create / $floor" | bc)x" "<= 3x floor"
row "sandbox kill" "${kill_ms} ms" "" "" ""
row "engine RSS, 20 sandboxes" "$(echo "scale=1; $engine_kib / 1024" | bc) MiB" "" "" "< 10 MiB"
row "agent RSS (median / max of 20)" "$(echo "scale=1; $agent_kib / 1024" | bc) MiB" "max $(echo "scale=1; $agent_max / 1024" | bc)" "" "< 5 MiB"
