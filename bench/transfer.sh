#!/bin/bash
# 1 GiB upload and download (BENCH_SIZE_MIB) against cp of the same file on
# the same disk, each followed by sync, repeated BENCH_TRANSFER_N times; peak
# RSS of allox-cli during each transfer and of the sandbox's agent after all.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
: "${ALLOX_CLI:?}"
N=${BENCH_TRANSFER_N:-5}
SIZE_MIB=${BENCH_SIZE_MIB:-1024}
bench_home

"$ALLOX_CLI" sandbox create >/dev/null || exit 1
agent=$(jq -r .runtime.initPid "$ALLOX_HOME"/engine/sandboxes/*/record.json)

head -c $((SIZE_MIB * 1024 * 1024)) /dev/urandom >"$work/big"
sync

# mibs T0 T1 FILE: append the throughput of SIZE_MIB between the stamps.
mibs() {
	awk -v s="$SIZE_MIB" -v ms="$(ms_between "$1" "$2")" 'BEGIN { printf "%.1f\n", s * 1000 / ms }' >>"$3"
}

: >"$work/cp"; : >"$work/up"; : >"$work/down"; : >"$work/up.rss"; : >"$work/down.rss"
# floor_cp: cp of the same file, to the same disk, and sync, timed.
floor_cp() {
	rm -f "$work/big.cp"
	sync
	t0=$EPOCHREALTIME; cp "$work/big" "$work/big.cp" && sync; t1=$EPOCHREALTIME
	mibs "$t0" "$t1" "$work/cp"
	rm -f "$work/big.cp"
	sync
}

for ((i = 0; i < N; i++)); do
	rm -f "$work/big.back"
	"$ALLOX_CLI" run -- rm -f /home/gem/big >/dev/null || exit 1
	sync
	# The floor before the transfers, then after them: the disk's state
	# (writeback, discards of the files just removed) drifts over a run.
	((i % 2 == 0)) && floor_cp
	t0=$EPOCHREALTIME
	/usr/bin/time -f %M -a -o "$work/up.rss" "$ALLOX_CLI" file upload "$work/big" /home/gem/big >/dev/null || exit 1
	sync; t1=$EPOCHREALTIME
	mibs "$t0" "$t1" "$work/up"
	t0=$EPOCHREALTIME
	/usr/bin/time -f %M -a -o "$work/down.rss" "$ALLOX_CLI" file download /home/gem/big "$work/big.back" >/dev/null || exit 1
	sync; t1=$EPOCHREALTIME
	mibs "$t0" "$t1" "$work/down"
	cmp -s "$work/big" "$work/big.back" || { echo "bench: downloaded file differs" >&2; exit 1; }
	((i % 2 == 1)) && floor_cp
done
awk '/^VmHWM:/ { print $2 / 1024 }' "/proc/$agent/status" >"$work/agent.rss"
for f in up.rss down.rss; do awk '{ printf "%.2f\n", $1 / 1024 }' "$work/$f" >"$work/$f.mib"; done

c="cp $SIZE_MIB MiB"
bench_row "cp $SIZE_MIB MiB (floor)" MiB/s "$work/cp"
bench_row "file upload $SIZE_MIB MiB" MiB/s "$work/up" "$c" "$work/cp" "ratio>=0.5"
bench_row "file download $SIZE_MIB MiB" MiB/s "$work/down" "$c" "$work/cp" "ratio>=0.5"
bench_row "allox-cli peak RSS, upload" MiB "$work/up.rss.mib" "" "" "max<16"
bench_row "allox-cli peak RSS, download" MiB "$work/down.rss.mib" "" "" "max<16"
bench_row "allox-agent peak RSS (VmHWM)" MiB "$work/agent.rss" "" "" "max<16"
