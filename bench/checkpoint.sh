#!/bin/bash
# Checkpoints on the local engine: create time for 1, 10 and 100 MiB of
# changed data next to `cp -a` of the same writable layer, and restore-to-ready
# next to a fresh create-to-ready (and across sizes: restore should be flat).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
: "${ALLOX_CLI:?}"
N=${BENCH_N:-10}
SIZES=${BENCH_CHECKPOINT_MIB:-1 10 100}
bench_home

"$ALLOX_CLI" sandbox list >/dev/null || exit 1   # start the engine outside the timings

# floor_cp MIB: cp -a of the source sandbox's writable layer, timed.
floor_cp() {
	rm -rf "$work/copy"
	t0=$EPOCHREALTIME
	cp -a "$ALLOX_HOME/engine/sandboxes/$src/writable/layer" "$work/copy" || exit 1
	t1=$EPOCHREALTIME
	ms_between "$t0" "$t1" >>"$work/cp$1"
}

# time_checkpoint MIB: checkpoint create of the current sandbox, timed, and
# the engine's own capture time from its message "... in S s".
time_checkpoint() {
	t0=$EPOCHREALTIME
	"$ALLOX_CLI" checkpoint create -o json >"$work/cp.json" || return 1
	t1=$EPOCHREALTIME
	ms_between "$t0" "$t1" >>"$work/create$1"
	jq -r '.message' "$work/cp.json" | sed -n 's/.* in \([0-9.]*\) s$/\1/p' | awk '{ print $1 * 1000 }' >>"$work/engine$1"
}

: >"$work/fresh"
cp_ids=""
for mib in $SIZES; do
	src=$("$ALLOX_CLI" sandbox create -o json | jq -r .id) || exit 1
	"$ALLOX_CLI" run -- sh -c "head -c $((mib * 1048576)) /dev/urandom > /home/gem/data" >/dev/null || exit 1
	: >"$work/create$mib"; : >"$work/engine$mib"; : >"$work/restore$mib"; : >"$work/cp$mib"; : >"$work/fresh$mib"
	for ((i = 0; i < N; i++)); do
		# The peer of restore, in turn with it: a fresh create to ready.
		t0=$EPOCHREALTIME
		"$ALLOX_CLI" sandbox create -o json >"$work/new.json" || exit 1
		t1=$EPOCHREALTIME
		ms_between "$t0" "$t1" >>"$work/fresh$mib"
		"$ALLOX_CLI" sandbox kill "$(jq -r .id "$work/new.json")" >/dev/null || exit 1
		"$ALLOX_CLI" session use "$src" >/dev/null || exit 1
		# The floor, cp -a of the same writable layer, and the figure run back
		# to back, in alternating order, so both see the same aftermath of the
		# kill above (the kernel tears a sandbox down after kill returns).
		if ((i % 2 == 0)); then
			floor_cp "$mib"
			time_checkpoint "$mib" || exit 1
		else
			time_checkpoint "$mib" || exit 1
			floor_cp "$mib"
		fi
		cp_id=$(jq -r .id "$work/cp.json")
		t0=$EPOCHREALTIME
		"$ALLOX_CLI" checkpoint restore "$cp_id" -o json >"$work/restored.json" || exit 1
		t1=$EPOCHREALTIME
		ms_between "$t0" "$t1" >>"$work/restore$mib"
		"$ALLOX_CLI" sandbox kill "$(jq -r .id "$work/restored.json")" >/dev/null || exit 1
		# Deleted after the loop: the engine removes a deleted layer in the
		# background, and removing 100 MiB (with this disk's online discard)
		# would land in the next iteration's timings.
		cp_ids="$cp_ids $cp_id"
	done
	for cp_id in $cp_ids; do
		"$ALLOX_CLI" checkpoint delete "$cp_id" >/dev/null || exit 1
	done
	cp_ids=""
	rm -rf "$work/copy"
	"$ALLOX_CLI" sandbox kill "$src" >/dev/null || exit 1
	bench_row "checkpoint create, $mib MiB changed" ms "$work/create$mib" "cp -a, $mib MiB" "$work/cp$mib" "ratio<=1.5"
	[ -s "$work/engine$mib" ] && bench_row "checkpoint create, $mib MiB, engine capture alone" ms "$work/engine$mib" "cp -a, $mib MiB" "$work/cp$mib"
	bench_row "restore to ready, $mib MiB" ms "$work/restore$mib" "fresh create" "$work/fresh$mib" "ratio<=1.5"
	# Each restore over the fresh create of its own round: what the restore
	# costs beyond any create, whatever the machine was doing then.
	paste "$work/restore$mib" "$work/fresh$mib" | awk '$2 > 0 { print $1 / $2 }' >"$work/rel$mib"
	cat "$work/fresh$mib" >>"$work/fresh"
done
bench_row "fresh sandbox create (to ready), all sizes' runs" ms "$work/fresh"
set -- $SIZES
first=$1
shift $(($# - 1))
if [ "$1" != "$first" ]; then
	# Flat in size: taken right after a larger checkpoint, every create (fresh
	# ones too) competes with the writeback of its data, so the restores'
	# times are compared as multiples of their rounds' fresh creates; the raw
	# times are shown next to it.
	bench_row "restore to ready, $1 MiB vs $first MiB" ms "$work/restore$1" "restore, $first MiB" "$work/restore$first"
	bench_row "restore/fresh create, $1 MiB vs $first MiB (flat)" x "$work/rel$1" "restore/fresh, $first MiB" "$work/rel$first" "ratio<=1.25"
fi
exit 0
