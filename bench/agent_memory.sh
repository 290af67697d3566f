#!/bin/sh
# A fresh sandbox's agent: VmRSS, Pss (smaps_rollup) and
# the shared objects it maps, median of BENCH_N sandboxes (default 10).
# Then the same for one of them after a Jupyter-free heavy-route call
# (GET /v1/mcp/servers), which loads the extension module.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
: "${ALLOX_CLI:?}"
N=${BENCH_N:-10}
export ALLOX_HOME="$(mktemp -d /tmp/allox-bench.XXXXXX)"
trap '"$ALLOX_CLI" sandbox list -o raw 2>/dev/null | cut -f1 | while read -r id; do "$ALLOX_CLI" sandbox kill "$id" >/dev/null 2>&1; done; kill "$(cat "$ALLOX_HOME/run/engine.pid" 2>/dev/null)" 2>/dev/null; rm -rf "$ALLOX_HOME"' EXIT

pss_kib() {
	awk '/^Pss:/ { print $2 }' "/proc/$1/smaps_rollup" 2>/dev/null
}

# The shared objects PID maps, one per line.
libs_of() {
	awk '$6 ~ /\.so/ { print $6 }' "/proc/$1/maps" | sort -u
}

"$ALLOX_CLI" sandbox list >/dev/null || exit 1
: > "$ALLOX_HOME/rss"
: > "$ALLOX_HOME/pss"
: > "$ALLOX_HOME/nlibs"
i=0
while [ "$i" -lt "$N" ]; do
	id=$("$ALLOX_CLI" sandbox create -o json | jq -r .id) || exit 1
	pid=$(jq -r .runtime.initPid "$ALLOX_HOME/engine/sandboxes/$id/record.json")
	rss_kib "$pid" >> "$ALLOX_HOME/rss"
	pss_kib "$pid" >> "$ALLOX_HOME/pss"
	libs_of "$pid" | wc -l >> "$ALLOX_HOME/nlibs"
	i=$((i + 1))
done
heavy=$(libs_of "$pid" | grep -c -e libzmq -e libwebsockets -e libcrypto)

# The last one after a call that needs the extension module.
"$ALLOX_CLI" aio mcp servers "$id" >/dev/null 2>&1 || "$ALLOX_CLI" aio mcp servers >/dev/null 2>&1
after_rss=$(rss_kib "$pid")
after_pss=$(pss_kib "$pid")
after_libs=$(libs_of "$pid" | wc -l)

echo "allox-agent memory (median of $N fresh sandboxes, $(uname -r))"
row "measure" "fresh" "after mcp" "" "target"
row "agent VmRSS" "$(median "$ALLOX_HOME/rss") KiB" "$after_rss KiB" "" "< 5120 KiB"
row "agent Pss (smaps_rollup)" "$(median "$ALLOX_HOME/pss") KiB" "$after_pss KiB" "" ""
row "shared objects mapped" "$(median "$ALLOX_HOME/nlibs")" "$after_libs" "" ""
row "libzmq/lws/libcrypto mapped" "$heavy" "" "" "0"
