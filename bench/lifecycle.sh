#!/bin/bash
# Sandbox lifecycle on the local engine: create-to-ready, kill and `run --
# true` against the bubblewrap floor; then 50 sandboxes alive: the engine's
# and the agents' memory, and whether create time stays flat as they pile up.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
: "${ALLOX_CLI:?}"
N=${BENCH_N:-10}
ALIVE=${BENCH_ALIVE:-50}
bench_home

"$ALLOX_CLI" sandbox list >/dev/null || exit 1   # start the engine outside the timings

floor() { bwrap --ro-bind / / --unshare-all --share-net --proc /proc --dev /dev true; }
run_true() { "$ALLOX_CLI" run -- true; }

# The floor's samples are taken in turn with the figures' (see time_alt).
: >"$work/floor"
: >"$work/create"
: >"$work/kill"
for ((i = 0; i < N; i++)); do
	t0=$EPOCHREALTIME
	floor >/dev/null 2>&1 || { echo "bench: bwrap failed" >&2; exit 1; }
	t1=$EPOCHREALTIME
	ms_between "$t0" "$t1" >>"$work/floor"
	t0=$EPOCHREALTIME
	"$ALLOX_CLI" sandbox create -o json >"$work/created" || exit 1
	t1=$EPOCHREALTIME
	ms_between "$t0" "$t1" >>"$work/create"
	# The id first: jq 1.6 takes ~20 ms to start, twice the kill itself.
	id=$(jq -r .id "$work/created")
	t1=$EPOCHREALTIME
	"$ALLOX_CLI" sandbox kill "$id" >/dev/null || exit 1
	t2=$EPOCHREALTIME
	ms_between "$t1" "$t2" >>"$work/kill"
done

"$ALLOX_CLI" sandbox create >/dev/null || exit 1
"$ALLOX_CLI" run -- true >/dev/null || exit 1
time_alt "$N" "$work/floor_run" floor "$work/run" run_true || exit 1
cat "$work/floor_run" >>"$work/floor"

# $ALIVE sandboxes alive (the one above included): each create timed.
: >"$work/alive"
for ((i = 1; i < ALIVE; i++)); do
	t0=$EPOCHREALTIME
	"$ALLOX_CLI" sandbox create >/dev/null || { echo "bench: create $((i + 1)) of $ALIVE failed" >&2; exit 1; }
	t1=$EPOCHREALTIME
	ms_between "$t0" "$t1" >>"$work/alive"
done
head -n 10 "$work/alive" >"$work/first10"
tail -n 10 "$work/alive" >"$work/last10"
rss_kib "$(cat "$ALLOX_HOME/run/engine.pid")" | awk '{ print $1 / 1024 }' >"$work/engine_rss"
: >"$work/agents"
for rec in "$ALLOX_HOME"/engine/sandboxes/*/record.json; do
	rss_kib "$(jq -r .runtime.initPid "$rec")" | awk '{ print $1 / 1024 }' >>"$work/agents"
done
[ "$(wc -l <"$work/agents")" -eq "$ALIVE" ] || { echo "bench: $(wc -l <"$work/agents") agents of $ALIVE" >&2; exit 1; }

b="bwrap ... true"
bench_row "bwrap floor (true)" ms "$work/floor"
bench_row "sandbox create (to ready)" ms "$work/create" "$b" "$work/floor" "ratio<=3"
bench_row "sandbox kill" ms "$work/kill" "$b" "$work/floor"
bench_row "run -- true (process to exit)" ms "$work/run" "$b" "$work/floor" "ratio<=2.5"
bench_row "engine RSS, $ALIVE sandboxes alive" MiB "$work/engine_rss" "" "" "<10"
bench_row "agent RSS, each of $ALIVE alive" MiB "$work/agents" "" "" "max<5"
bench_row "create time, sandboxes 1-10" ms "$work/first10" "$b" "$work/floor"
bench_row "create time, sandboxes $((ALIVE - 9))-$ALIVE (flat)" ms "$work/last10" "create time, sandboxes 1-10" "$work/first10" "ratio<=1.25"
