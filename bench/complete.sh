#!/bin/sh
# Completion latency: what one Tab costs. Medians of `allox-cli __complete`
# answering sandbox ids from a fresh cache, after a stale cache (a refresh
# from the running engine), with no engine running (nothing to ask), a whole
# command line, and the bash completion function end to end; next to
# `allox-cli --version`, the cost of starting the binary. Target: < 50 ms.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
: "${ALLOX_CLI:?}"
N=${BENCH_N:-30}
bench_home

"$ALLOX_CLI" sandbox create >/dev/null || exit 1
"$ALLOX_CLI" checkpoint create --name bench >/dev/null || exit 1
cache="$ALLOX_HOME/cache/ids.json"

# time_stale N FILE: like time_n for `__complete sandbox-ids`, each run after
# making the cached list stale (so each one refreshes); only the call is timed.
time_stale() {
	: >"$2"
	i=0
	while [ "$i" -lt "$1" ]; do
		jq '.sandboxes_at = 0' "$cache" >"$cache.tmp" && mv "$cache.tmp" "$cache"
		t0=$(now_ns)
		"$ALLOX_CLI" __complete sandbox-ids >/dev/null || return 1
		t1=$(now_ns)
		echo "scale=3; ($t1 - $t0) / 1000000" | bc >>"$2"
		i=$((i + 1))
	done
}

time_n "$N" "$work/version" "$ALLOX_CLI" --version || exit 1
"$ALLOX_CLI" sandbox list >/dev/null
time_n "$N" "$work/fresh" "$ALLOX_CLI" __complete sandbox-ids || exit 1
time_n "$N" "$work/line" "$ALLOX_CLI" __complete line -- sandbox get "" || exit 1
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

v=$(median "$work/version")
m() { median "$work/$1"; }
bashfn=$(echo "scale=3; $(m bashfn) - $(m bashnil)" | bc)
echo "allox-cli completion benchmark (medians of $N; $(nproc) cores, load $(cut -d" " -f1 /proc/loadavg), $(uname -r))"
row "benchmark" "median" "--version" "" "target"
row "allox-cli --version (start-up)" "$v ms" "" "" ""
row "sandbox ids, fresh cache" "$(m fresh) ms" "$v ms" "" "< 50 ms"
row "line: sandbox get <Tab>" "$(m line) ms" "$v ms" "" "< 50 ms"
row "sandbox ids, stale: engine refresh" "$(m stale) ms" "$v ms" "" "< 50 ms"
row "sandbox ids, no cache, no engine" "$(m noengine) ms" "$v ms" "" "< 50 ms"
row "bash _allox_cli beyond bash start" "$bashfn ms" "" "" "< 50 ms"
