#!/bin/sh
# `run -- true` against the bubblewrap floor; 1 GiB upload and download
# against cp on the same disk; peak RSS of allox-cli and allox-agent meanwhile.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
: "${ALLOX_CLI:?}"
N=${BENCH_N:-20}
SIZE_MIB=${BENCH_SIZE_MIB:-1024}
bench_home

"$ALLOX_CLI" sandbox create >/dev/null || exit 1
agent=$(jq -r .runtime.initPid "$ALLOX_HOME"/engine/sandboxes/*/record.json)

time_n "$N" "$work/floor" bwrap --ro-bind / / --unshare-all --share-net --proc /proc --dev /dev true || exit 1
time_n "$N" "$work/run" "$ALLOX_CLI" run -- true || exit 1
floor=$(median "$work/floor")
run_ms=$(median "$work/run")

head -c $((SIZE_MIB * 1024 * 1024)) /dev/urandom > "$work/big"
sync
t0=$(now_ns); cp "$work/big" "$work/big.cp"; sync; t1=$(now_ns)
cp_s=$(echo "scale=3; ($t1 - $t0) / 1000000000" | bc)
rm -f "$work/big.cp"

# Peak RSS of the agent while transfers run: sample VmHWM after each.
t0=$(now_ns)
/usr/bin/time -f %M -o "$work/up.rss" "$ALLOX_CLI" file upload "$work/big" /home/gem/big >/dev/null || exit 1
sync; t1=$(now_ns)
up_s=$(echo "scale=3; ($t1 - $t0) / 1000000000" | bc)
t0=$(now_ns)
/usr/bin/time -f %M -o "$work/down.rss" "$ALLOX_CLI" file download /home/gem/big "$work/big.back" >/dev/null || exit 1
sync; t1=$(now_ns)
down_s=$(echo "scale=3; ($t1 - $t0) / 1000000000" | bc)
cmp -s "$work/big" "$work/big.back" || { echo "bench: downloaded file differs" >&2; exit 1; }
agent_hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$agent/status")

mibs() { echo "scale=1; $SIZE_MIB / $1" | bc; }
echo "allox-cli run and transfer benchmark (median of $N runs; $SIZE_MIB MiB file)"
row "benchmark" "median" "floor/cp" "ratio" "target"
row "run -- true (process to exit)" "${run_ms} ms" "${floor} ms" "$(echo "scale=2; $run_ms / $floor" | bc)x" "<= 2.5x floor"
row "upload" "$(mibs "$up_s") MiB/s" "$(mibs "$cp_s") MiB/s" "$(echo "scale=2; $cp_s / $up_s" | bc)x" ">= 0.5x cp"
row "download" "$(mibs "$down_s") MiB/s" "$(mibs "$cp_s") MiB/s" "$(echo "scale=2; $cp_s / $down_s" | bc)x" ">= 0.5x cp"
row "allox-cli peak RSS (upload)" "$(echo "scale=1; $(cat "$work/up.rss") / 1024" | bc) MiB" "" "" "< 16 MiB"
row "allox-cli peak RSS (download)" "$(echo "scale=1; $(cat "$work/down.rss") / 1024" | bc) MiB" "" "" "< 16 MiB"
row "allox-agent peak RSS" "$(echo "scale=1; $agent_hwm / 1024" | bc) MiB" "" "" "< 16 MiB"
