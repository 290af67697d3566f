#!/bin/bash
# Jupyter in a sandbox: the first call of a session (which starts its
# kernel) and the warm print(1) round trip, next to `run -- true`, the cost
# of any call. Target: warm round trip under 20 ms beyond it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
: "${ALLOX_CLI:?}"
N=${BENCH_N:-10}
FIRST_N=${BENCH_FIRST_N:-3}
bench_home

"$ALLOX_CLI" sandbox create >/dev/null || exit 1
"$ALLOX_CLI" run -- true >/dev/null || exit 1

# Each first call in a new session starts a kernel.
: >"$work/first"
for ((i = 0; i < FIRST_N; i++)); do
	t0=$EPOCHREALTIME
	"$ALLOX_CLI" aio jupyter run --session "first-$i" -c 'print(1)' >/dev/null || { echo "bench: first call failed" >&2; exit 1; }
	t1=$EPOCHREALTIME
	ms_between "$t0" "$t1" >>"$work/first"
done

"$ALLOX_CLI" aio jupyter run -c 'print(1)' >/dev/null || exit 1
run_true() { "$ALLOX_CLI" run -- true; }
warm() { "$ALLOX_CLI" aio jupyter run -c 'print(1)'; }
time_alt "$N" "$work/run" run_true "$work/warm" warm || exit 1

r="run -- true"
bench_row "run -- true (the cost of any call)" ms "$work/run"
bench_row "jupyter first call (kernel start)" ms "$work/first" "$r" "$work/run"
bench_row "jupyter warm print(1)" ms "$work/warm" "$r" "$work/run" "beyond<20"
