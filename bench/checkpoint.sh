#!/bin/sh
# Checkpoints on the local engine: create time for 1, 10 and 100 MiB of
# changed data next to `cp -a` of the same layer, and restore-to-ready next
# to a fresh create-to-ready.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
: "${ALLOX_CLI:?}"
N=${BENCH_N:-7}
export ALLOX_HOME="$(mktemp -d /tmp/allox-bench.XXXXXX)"
trap '"$ALLOX_CLI" sandbox list -o raw 2>/dev/null | cut -f1 | while read -r id; do "$ALLOX_CLI" sandbox kill "$id" >/dev/null 2>&1; done; kill "$(cat "$ALLOX_HOME/run/engine.pid" 2>/dev/null)" 2>/dev/null; rm -rf "$ALLOX_HOME"' EXIT
B="$ALLOX_HOME/bench"
mkdir -p "$B"

"$ALLOX_CLI" sandbox list >/dev/null || exit 1   # start the engine outside the timings

time_n "$N" "$B/fresh" "$ALLOX_CLI" sandbox create || exit 1
fresh=$(median "$B/fresh")
"$ALLOX_CLI" sandbox list -o raw | cut -f1 | while read -r id; do "$ALLOX_CLI" sandbox kill "$id" >/dev/null; done

echo "allox-cli checkpoint benchmark (median of $N runs, $(nproc) cores, $(uname -r))"
row "benchmark" "median" "floor" "ratio" "target"
row "fresh create (to ready)" "${fresh} ms" "" "" ""
for mib in 1 10 100; do
	src=$("$ALLOX_CLI" sandbox create -o json | jq -r .id) || exit 1
	"$ALLOX_CLI" run -- sh -c "head -c $((mib * 1048576)) /dev/urandom > /home/gem/data" >/dev/null || exit 1
	: > "$B/create"; : > "$B/engine"; : > "$B/restore"
	i=0
	while [ "$i" -lt "$N" ]; do
		t0=$(now_ns)
		"$ALLOX_CLI" session use "$src" >/dev/null
		t0=$(now_ns)
		cp_json=$("$ALLOX_CLI" checkpoint create -o json) || exit 1
		t1=$(now_ns)
		echo "scale=3; ($t1 - $t0) / 1000000" | bc >> "$B/create"
		echo "$cp_json" | jq -r '.message' | sed -n 's/.* in \([0-9.]*\) s$/\1/p' | awk '{ print $1 * 1000 }' >> "$B/engine"
		cp_id=$(echo "$cp_json" | jq -r .id)
		t0=$(now_ns)
		rid=$("$ALLOX_CLI" checkpoint restore "$cp_id" -o json | jq -r .id) || exit 1
		t1=$(now_ns)
		echo "scale=3; ($t1 - $t0) / 1000000" | bc >> "$B/restore"
		"$ALLOX_CLI" sandbox kill "$rid" >/dev/null
		"$ALLOX_CLI" checkpoint delete "$cp_id" >/dev/null
		i=$((i + 1))
	done
	# The floor: cp -a of the same writable layer, as a fresh process each time.
	layer="$ALLOX_HOME/engine/sandboxes/$src/layer"
	time_n "$N" "$B/cp" sh -c "rm -rf '$B/copy' && cp -a '$layer' '$B/copy'" || exit 1
	rm -rf "$B/copy"
	c=$(median "$B/create"); e=$(median "$B/engine"); f=$(median "$B/cp"); r=$(median "$B/restore")
	row "checkpoint create, $mib MiB" "${c} ms" "cp ${f} ms" "$(echo "scale=2; $c / $f" | bc)x" "<= 1.5x cp -a"
	row "  engine capture, $mib MiB" "${e} ms" "cp ${f} ms" "$(echo "scale=2; $e / $f" | bc)x" ""
	row "restore to ready, $mib MiB" "${r} ms" "new ${fresh} ms" "$(echo "scale=2; $r / $fresh" | bc)x" "<= 1.5x fresh create"
	"$ALLOX_CLI" sandbox kill "$src" >/dev/null
done
