#!/bin/bash
# Concurrency: ROUND runs of a short CPU-bound command (a shell loop of some
# 30 ms) against one sandbox, issued by 1, 2, 4, 8, 16 and 32 concurrent
# `allox-cli run` clients; throughput in runs/s at each level next to 1 at a
# time. Target: it scales until the cores are busy (at least 3/4 of
# min(clients, cores) times the throughput of one client) and no run fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
: "${ALLOX_CLI:?}"
# Rounds: 5 by default, as a round of 32 runs at one client takes seconds.
N=${BENCH_PARALLEL_N:-5}
ROUND=${BENCH_ROUND:-32}
LEVELS=${BENCH_LEVELS:-1 2 4 8 16 32}
CMD='i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done'
bench_home
cores=$(nproc)

"$ALLOX_CLI" sandbox create >/dev/null || exit 1
"$ALLOX_CLI" run -- sh -c "$CMD" >/dev/null || exit 1
time_n "$N" "$work/single" "$ALLOX_CLI" run -- sh -c "$CMD" || exit 1

# round C FILE: ROUND runs by C concurrent clients; append runs/s to FILE.
# A run that fails (non-zero exit or a wrong answer) is counted in $work/errors.
round() {
	local t0 t1
	t0=$EPOCHREALTIME
	seq "$ROUND" | xargs -P "$1" -I{} sh -c \
		'out=$("$0" run -- sh -c "$1; echo ok-{}" 2>&1); [ "$out" = "ok-{}" ] || echo "{}: $out" >>"$2"' \
		"$ALLOX_CLI" "$CMD" "$work/errors"
	t1=$EPOCHREALTIME
	awk -v r="$ROUND" -v ms="$(ms_between "$t0" "$t1")" 'BEGIN { printf "%.3f\n", r * 1000 / ms }' >>"$2"
}

: >"$work/errors"
for c in $LEVELS; do : >"$work/tput$c"; done
# Levels interleaved round by round, so a burst of load elsewhere on the
# machine hits every level alike.
for ((i = 0; i < N; i++)); do
	for c in $LEVELS; do round "$c" "$work/tput$c"; done
done
# Waiting, not computing: 32 clients each running `sleep 0.2` at once next to
# one; with the runs served concurrently the 32 end in about the time of one.
sleep1() { "$ALLOX_CLI" run -- sleep 0.2; }
sleep32() {
	seq 32 | xargs -P 32 -I{} sh -c '"$0" run -- sleep 0.2 >/dev/null 2>&1 || echo "sleep {}" >>"$1"' "$ALLOX_CLI" "$work/errors"
}
time_alt "$N" "$work/sleep1" sleep1 "$work/sleep32" sleep32 || exit 1

errors=$(wc -l <"$work/errors")
[ "$errors" -eq 0 ] || { echo "bench: $errors failed runs, e.g.:" >&2; head -n 3 "$work/errors" >&2; }

bench_row "run -- sh -c '<30 ms loop>', 1 client" ms "$work/single"
for c in $LEVELS; do
	want=$(awk -v c="$c" -v n="$cores" 'BEGIN { printf "%.2f", 0.75 * (c < n ? c : n) }')
	if [ "$c" -eq 1 ]; then
		bench_row "throughput, $c client" runs/s "$work/tput$c"
	else
		bench_row "throughput, $c clients" runs/s "$work/tput$c" "1 client" "$work/tput1" "ratio>=$want"
	fi
done
bench_row "run -- sleep 0.2, 1 client" ms "$work/sleep1"
bench_row "run -- sleep 0.2, 32 clients at once (all done)" ms "$work/sleep32" "1 client" "$work/sleep1"
bench_value "failed runs ($((N * ROUND)) at each level, $((N * 32)) sleeps)" runs "$errors" "<=0"
