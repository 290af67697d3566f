#!/bin/sh
# Create-to-ready with two agent binaries, interleaved so that the load of a
# shared machine falls on both alike: AGENT_A (e.g. a copy of an older
# allox-agent) and AGENT_B (default: the one beside ALLOX_CLI), one engine and
# ALLOX_HOME each, BENCH_N creates + kills each (default 20), medians.
#   AGENT_A=/tmp/allox-agent.old ALLOX_CLI=$PWD/allox-cli sh bench/agent_ab.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
: "${ALLOX_CLI:?}"
: "${AGENT_A:?AGENT_A must point at the agent to compare with}"
AGENT_B=${AGENT_B:-$(dirname "$ALLOX_CLI")/allox-agent}
N=${BENCH_N:-20}
top=$(mktemp -d /tmp/allox-bench.XXXXXX)
trap 'for h in "$top"/a "$top"/b; do ALLOX_HOME=$h "$ALLOX_CLI" sandbox list -o raw 2>/dev/null | cut -f1 | while read -r id; do ALLOX_HOME=$h "$ALLOX_CLI" sandbox kill "$id" >/dev/null 2>&1; done; kill "$(cat "$h/run/engine.pid" 2>/dev/null)" 2>/dev/null; done; rm -rf "$top"' EXIT

# one HOME AGENT OUT: create (timed) and kill one sandbox.
one() {
	t0=$(now_ns)
	id=$(ALLOX_HOME=$1 ALLOX_AGENT=$2 "$ALLOX_CLI" sandbox create -o json | jq -r .id) || return 1
	t1=$(now_ns)
	ALLOX_HOME=$1 "$ALLOX_CLI" sandbox kill "$id" >/dev/null || return 1
	echo "scale=3; ($t1 - $t0) / 1000000" | bc >> "$3"
}

mkdir -p "$top/a" "$top/b"
# The engines start outside the timings, each with its agent.
ALLOX_HOME="$top/a" ALLOX_AGENT="$AGENT_A" "$ALLOX_CLI" sandbox list >/dev/null || exit 1
ALLOX_HOME="$top/b" ALLOX_AGENT="$AGENT_B" "$ALLOX_CLI" sandbox list >/dev/null || exit 1
: > "$top/ta"
: > "$top/tb"
i=0
while [ "$i" -lt "$N" ]; do
	one "$top/a" "$AGENT_A" "$top/ta" || exit 1
	one "$top/b" "$AGENT_B" "$top/tb" || exit 1
	i=$((i + 1))
done
echo "sandbox create-to-ready, interleaved (median of $N each, $(nproc) cores)"
row "agent" "median" "min" "" ""
row "A $(basename "$AGENT_A")" "$(median "$top/ta") ms" "$(sort -n "$top/ta" | head -n 1) ms" "" ""
row "B $(basename "$AGENT_B")" "$(median "$top/tb") ms" "$(sort -n "$top/tb" | head -n 1) ms" "" ""
