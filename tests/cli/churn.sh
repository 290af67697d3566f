#!/bin/sh
# Load and churn against a real local engine in a private ALLOX_HOME:
# 50 concurrent `run`s against one sandbox each get exactly their own output;
# 200 create/kill cycles (4 at a time) leave no process, mount, cgroup, engine
# fd or state directory behind, and the engine's RSS stays flat.
# ALLOX_TEST_NO_RSS=1 skips the RSS check (sanitizer and valgrind builds).
. "${TESTS_DIR:-tests}/cli/lib.sh"
. "${TESTS_DIR:-tests}/cli/engine_lib.sh"

RUNS=50
CYCLES=200
PARALLEL=4
RSS_SLACK_KB=1024

# vm_rss_kb PID: the process's resident set in kB.
vm_rss_kb() {
	awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"
}

# fd_count PID: open descriptors of the process.
fd_count() {
	ls "/proc/$1/fd" | wc -l
}

t "$RUNS concurrent runs against one sandbox each print exactly their own output"
run allox sandbox create -o json
expect_rc 0
ID=$(jq -r .id "$TMP/out")
EPID=$(engine_pid)
AGENT=$(jq -r .runtime.initPid "$STATE/$ID/record.json")
agent_fds=$(fd_count "$AGENT")
# Each command marks itself started, then waits until all $RUNS have started
# before printing: a run that the agent or the CLI serialised would never see
# the others and fail after the wait, so all of them were in flight at once.
barrier='b=/tmp/churn-barrier; mkdir -p $b && : > $b/$0; n=0
while [ "$(ls $b | wc -l)" -lt '"$RUNS"' ]; do
	n=$((n + 1)); [ $n -le 1200 ] || { echo "$0: the others never started" >&2; exit 9; }
	sleep 0.1
done
echo $0-$((1+1))'
mkdir "$TMP/runs"
runs_start=$(date +%s.%N)
i=1
while [ $i -le $RUNS ]; do
	(
		"$ALLOX_CLI" run "$ID" -- sh -c "$barrier" "job$i" >"$TMP/runs/$i.out" 2>"$TMP/runs/$i.err"
		echo $? >"$TMP/runs/$i.rc"
	) &
	i=$((i + 1))
done
wait
echo "# $RUNS concurrent runs in $(echo "$(date +%s.%N) - $runs_start" | bc) s" >&2
i=1
bad=0
while [ $i -le $RUNS ]; do
	if [ "$(cat "$TMP/runs/$i.rc")" != 0 ] || [ "$(cat "$TMP/runs/$i.out")" != "job$i-2" ] ||
		[ -s "$TMP/runs/$i.err" ]; then
		bad=$((bad + 1))
		echo "run $i: exit $(cat "$TMP/runs/$i.rc"), out '$(cat "$TMP/runs/$i.out")', err '$(cat "$TMP/runs/$i.err")'" >&2
	fi
	i=$((i + 1))
done
[ $bad -eq 0 ] || fail "$bad of $RUNS runs wrong"
# Exactly one line each, and no two runs got the same output.
[ "$(cat "$TMP"/runs/*.out | sort -u | wc -l)" -eq $RUNS ] || fail "outputs not unique"
[ "$(cat "$TMP"/runs/*.out | wc -l)" -eq $RUNS ] || fail "not one line per run"

agent_fds_le() {
	[ "$(fd_count "$AGENT")" -le "$agent_fds" ]
}

t "the agent's descriptors return to their count before the runs"
wait_until 10 agent_fds_le || fail "agent fds $agent_fds -> $(fd_count "$AGENT")"

t "the sandbox still answers after the load, and kill cleans it up"
run allox run "$ID" -- sh -c 'ls /tmp/churn-barrier | wc -l'
expect_rc 0
expect_out "$RUNS"
run allox sandbox kill "$ID"
expect_rc 0
[ ! -e "$STATE/$ID" ] || fail "state dir left"

# cycle N: create a sandbox, note its id and pids, kill it; failures go to cycles.bad.
cycle() {
	if ! "$ALLOX_CLI" sandbox create -o json >"$TMP/cycle.$1" 2>>"$TMP/cycles.err"; then
		echo "create $1" >>"$TMP/cycles.bad"
		return
	fi
	c_id=$(jq -r .id "$TMP/cycle.$1")
	echo "$c_id" >>"$TMP/ids"
	jq -r '.runtime.pid, .runtime.initPid' "$STATE/$c_id/record.json" >>"$TMP/pids" 2>>"$TMP/cycles.err"
	"$ALLOX_CLI" sandbox kill "$c_id" >/dev/null 2>>"$TMP/cycles.err" || echo "kill $c_id" >>"$TMP/cycles.bad"
	rm -f "$TMP/cycle.$1"
}

# cycles FROM TO: run cycles FROM..TO, $PARALLEL at a time.
cycles() {
	n=$1
	while [ "$n" -le "$2" ]; do
		k=0
		while [ $k -lt $PARALLEL ] && [ "$n" -le "$2" ]; do
			cycle "$n" &
			k=$((k + 1))
			n=$((n + 1))
		done
		wait
	done
}

# leftover_procs: live processes (other than the engine) whose command line
# names this home's sandboxes directory or whose cgroup or command line names
# one of the cycled sandboxes (bwrap, the agent and the entrypoint).
leftover_procs() {
	{ echo "$STATE/"; cat "$TMP/ids"; } >"$TMP/patterns"
	for f in $(grep -alF -f "$TMP/patterns" /proc/[0-9]*/cmdline /proc/[0-9]*/cgroup 2>/dev/null); do
		p=${f#/proc/}
		p=${p%%/*}
		[ "$p" != "$EPID" ] && alive "$p" && echo "$p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"
	done
}

no_leftover_procs() {
	[ -z "$(leftover_procs)" ]
}

t "$CYCLES create/kill cycles, $PARALLEL at a time, all succeed"
: >"$TMP/ids"
: >"$TMP/pids"
EPID=$(engine_pid)
fds_before=$(fd_count "$EPID")
start=$(date +%s)
cycles 1 $((CYCLES / 2))
rss_half=$(vm_rss_kb "$EPID")
cycles $((CYCLES / 2 + 1)) $CYCLES
rss_end=$(vm_rss_kb "$EPID")
elapsed=$(($(date +%s) - start))
echo "# $CYCLES cycles in ${elapsed}s; engine VmRSS ${rss_half} kB after $((CYCLES / 2)), ${rss_end} kB after $CYCLES; fds $fds_before before" >&2
[ ! -s "$TMP/cycles.bad" ] || fail "failed: $(tr '\n' ' ' <"$TMP/cycles.bad") $(head -5 "$TMP/cycles.err")"
[ "$(sort -u "$TMP/ids" | wc -l)" -eq $CYCLES ] || fail "$(sort -u "$TMP/ids" | wc -l) distinct sandboxes, expected $CYCLES"
[ "$(grep -c '^[0-9][0-9]*$' "$TMP/pids")" -eq $((CYCLES * 2)) ] || fail "pids not recorded for every sandbox"
[ "$(engine_pid)" = "$EPID" ] && alive "$EPID" || fail "the engine restarted or died"

t "the cycles leave no process behind"
wait_until 10 no_leftover_procs || fail "left: $(leftover_procs)"
# The recorded bwrap and init pids: dead, or reused by a process that has
# nothing to do with this home (the scan above would have named it).
for p in $(cat "$TMP/pids"); do
	if alive "$p" && tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -qF "$ALLOX_HOME"; then
		fail "pid $p alive"
	fi
done

t "the cycles leave no mount behind"
grep -F "$STATE" /proc/self/mountinfo && fail "mount left in the host's namespace"
grep -F "$STATE" "/proc/$EPID/mountinfo" && fail "mount left in the engine's namespace"

t "the cycles leave no state directory and no cgroup behind"
[ -z "$(ls -A "$STATE")" ] || fail "state left: $(ls -A "$STATE" | head -5)"
if ls -d /sys/fs/cgroup/*/allox /sys/fs/cgroup/allox 2>/dev/null | grep -q .; then
	left=$(ls /sys/fs/cgroup/*/allox/ /sys/fs/cgroup/allox/ 2>/dev/null | grep -F -f "$TMP/ids")
	[ -z "$left" ] || fail "cgroups left: $left"
fi
run allox sandbox list -o json
expect_rc 0
jq -e 'length == 0' "$TMP/out" >/dev/null || fail "sandboxes listed"

t "the engine's descriptors do not grow"
fds_after=$(fd_count "$EPID")
[ "$fds_after" -le "$fds_before" ] || fail "engine fds $fds_before -> $fds_after: $(ls -l "/proc/$EPID/fd")"

t "the engine's RSS stays flat"
if [ -n "${ALLOX_TEST_NO_RSS:-}" ]; then
	echo "# skipped: ALLOX_TEST_NO_RSS" >&2
else
	[ "$rss_end" -le $((rss_half + RSS_SLACK_KB)) ] ||
		fail "engine VmRSS ${rss_half} kB after $((CYCLES / 2)) cycles, ${rss_end} kB after $CYCLES"
fi

t "no cgroup is left of a sandbox of this test: ended ones, then all once the engine stops"
expect_clean_stop

done_testing
