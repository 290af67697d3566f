#!/bin/bash
# Completion latency: what one Tab costs. `allox-cli __complete` answering
# sandbox ids from a fresh cache, after a stale cache (a refresh from the
# running engine), with no engine running (nothing to ask), a whole command
# line, and the bash completion function end to end; next to
# `allox-cli --version`, the cost of starting the binary. Target: < 50 ms.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
: "${ALLOX_CLI:?}"
N=${BENCH_N:-10}
bench_home

"$ALLOX_CLI" sandbox create >/dev/null || exit 1
"$ALLOX_CLI" checkpoint create --name bench >/dev/null || exit 1
cache="$ALLOX_HOME/cache/ids.json"

# time_stale N FILE: like time_n for `__complete sandbox-ids`, each run after
# making the cached list stale (so each one refreshes); only the call is timed.
time_stale() {
	local i t0 t1
	: >"$2"
	for ((i = 0; i < $1; i++)); do
		jq '.sandboxes_at = 0' "$cache" >"$cache.tmp" && mv "$cache.tmp" "$cache"
		t0=$EPOCHREALTIME
		"$ALLOX_CLI" __complete sandbox-ids >/dev/null || return 1
		t1=$EPOCHREALTIME
		ms_between "$t0" "$t1" >>"$2"
	done
}

"$ALLOX_CLI" sandbox list >/dev/null
version() { "$ALLOX_CLI" --version; }
fresh() { "$ALLOX_CLI" __complete sandbox-ids; }
line() { "$ALLOX_CLI" __complete line -- sandbox get ""; }
time_alt "$N" "$work/version" version "$work/fresh" fresh "$work/line" line || exit 1
time_stale "$N" "$work/stale" || exit 1
cat >"$work/bash-driver" <<'EOS'
. "$1"
COMP_WORDS=("$2" sandbox get ""); COMP_CWORD=3; COMP_LINE="allox-cli sandbox get "; COMP_POINT=${#COMP_LINE}
_allox_cli
EOS
time_n "$N" "$work/bashfn" bash "$work/bash-driver" "$here/../completions/allox-cli.bash" "$ALLOX_CLI" || exit 1
time_n "$N" "$work/bashnil" bash -c : || exit 1
kill "$(cat "$ALLOX_HOME/run/engine.pid")" 2>/dev/null
sleep 0.5
rm -f "$cache"
time_n "$N" "$work/noengine" "$ALLOX_CLI" __complete sandbox-ids || exit 1
# The bash function alone: each sample less the median start of a bare bash.
bashnil=$(median "$work/bashnil")
awk -v b="$bashnil" '{ printf "%.3f\n", $1 - b }' "$work/bashfn" >"$work/bashonly"

v="allox-cli --version"
bench_row "__complete sandbox ids, fresh cache" ms "$work/fresh" "$v" "$work/version" "<50"
bench_row "__complete line: sandbox get <Tab>" ms "$work/line" "$v" "$work/version" "<50"
bench_row "__complete sandbox ids, stale: engine refresh" ms "$work/stale" "$v" "$work/version" "<50"
bench_row "__complete sandbox ids, no cache, no engine" ms "$work/noengine" "$v" "$work/version" "<50"
bench_row "bash _allox_cli beyond bash start" ms "$work/bashonly" "" "" "<50"
