#!/bin/bash
# The sandbox's browser: the cold screenshot (the first browser call in a new
# sandbox, which starts Chromium) and the warm one, end to end through
# allox-cli and at the agent's route alone (curl), next to `run -- true`, the
# cost of any call. Target: warm under 300 ms.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
: "${ALLOX_CLI:?}"
N=${BENCH_N:-10}
COLD_N=${BENCH_COLD_N:-3}
bench_home

# Cold: each in a fresh sandbox, whose first screenshot starts its Chromium.
: >"$work/cold"
for ((i = 0; i < COLD_N; i++)); do
	"$ALLOX_CLI" sandbox create >/dev/null || exit 1
	t0=$EPOCHREALTIME
	"$ALLOX_CLI" aio screenshot -f "$work/cold.png" >/dev/null || { echo "bench: cold screenshot failed" >&2; exit 1; }
	t1=$EPOCHREALTIME
	ms_between "$t0" "$t1" >>"$work/cold"
	"$ALLOX_CLI" sandbox kill >/dev/null || exit 1
done

"$ALLOX_CLI" sandbox create -o json >"$work/created" || exit 1
id=$(jq -r .id "$work/created")
"$ALLOX_CLI" aio screenshot -f "$work/warm.png" >/dev/null || exit 1
"$ALLOX_CLI" run -- true >/dev/null || exit 1
run_true() { "$ALLOX_CLI" run -- true; }
warm() { "$ALLOX_CLI" aio screenshot -f "$work/warm.png"; }
warm_jpeg() { "$ALLOX_CLI" aio screenshot -f "$work/warm.jpg" --format jpeg; }
time_alt "$N" "$work/run" run_true "$work/warm" warm "$work/warm_jpeg" warm_jpeg || exit 1

# The route alone, without the client's endpoint lookup.
curl -sS --max-time 10 --unix-socket "$ALLOX_HOME/run/engine.sock" -o "$work/ep.json" \
	"http://x/v1/sandboxes/$id/endpoints/44772" || exit 1
url="http://$(jq -r .endpoint "$work/ep.json")/v1/browser/screenshot"
token=$(jq -r '.headers["X-EXECD-ACCESS-TOKEN"]' "$work/ep.json")
time_n "$N" "$work/route" curl -sf -o "$work/route.png" -H "X-EXECD-ACCESS-TOKEN: $token" "$url" || exit 1

size=$("$ALLOX_CLI" aio browser info -o json | jq -r '"\(.viewport.width)x\(.viewport.height)"')
r="run -- true"
bench_row "run -- true (the cost of any call)" ms "$work/run"
bench_row "screenshot cold (Chromium start)" ms "$work/cold" "$r" "$work/run"
bench_row "screenshot warm png, $size" ms "$work/warm" "$r" "$work/run" "<300"
bench_row "screenshot warm jpeg, $size" ms "$work/warm_jpeg" "$r" "$work/run" "<300"
bench_row "GET /v1/browser/screenshot (curl, png)" ms "$work/route" "$r" "$work/run"
