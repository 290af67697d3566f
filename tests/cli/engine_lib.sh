# Helpers for shell tests that run a real local engine in the test's ALLOX_HOME
# (source after lib.sh). The trap ends the engine and every sandbox it started.

STATE="$ALLOX_HOME/engine/sandboxes"

engine_pid() {
	cat "$ALLOX_HOME/run/engine.pid" 2>/dev/null
}

stop_engine() {
	pid=$(engine_pid)
	# A live engine ends its sandboxes itself, cgroups included (straight to
	# its socket: the CLI would start an engine that is not there).
	if [ -n "$pid" ] && alive "$pid"; then
		for d in "$STATE"/*/; do
			[ -f "$d/record.json" ] || continue
			d=${d%/}
			curl -s -o /dev/null --max-time 20 -X DELETE --unix-socket "$ALLOX_HOME/run/engine.sock" \
				"http://x/v1/sandboxes/${d##*/}"
		done
	fi
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	# kill returns before the process is gone; until then its socket still
	# accepts connections and resets them as it dies (seen under ASan, whose
	# teardown is slow), so a test that starts a new engine next must wait.
	[ -n "$pid" ] && wait_until 10 gone "$pid"
	# A killed engine cannot remove its freezer hold (the next engine would).
	[ -n "$pid" ] && drop_hold "$pid"
	# Sandboxes of this home keep running; end them so nothing outlives the test.
	for d in "$STATE"/*/; do
		[ -f "$d/record.json" ] || continue
		p=$(jq -r '.runtime.initPid // empty' "$d/record.json")
		[ -n "$p" ] && kill -9 "$p" 2>/dev/null
	done
	# Their cgroups (<controller>/allox/<id>) outlive them: only the engine's
	# kill removes those, and no engine will see this home again.
	for d in "$STATE"/*/; do
		[ -f "$d/record.json" ] || continue
		p=$(jq -r '.runtime.initPid // empty' "$d/record.json")
		[ -n "$p" ] && wait_until 5 gone "$p"
		d=${d%/}
		# PID 1's parent (bwrap) and the rest leave the cgroup moments later.
		wait_until 5 rmdir_cgroups "${d##*/}"
	done
	unmount_disks
}

# unmount_disks: the sandboxes' disks (src/engine/runtime/disk.h) that no engine
# removed are mounted in this test's directory; their loop devices go with them.
unmount_disks() {
	for m in $(awk -v top="$TMP/" 'index($5, top) == 1 { print $5 }' /proc/self/mountinfo); do
		umount -l "$m" 2>/dev/null
	done
}

# hold_of PID: the empty cgroup engine PID keeps frozen (runtime.h says why).
hold_of() {
	echo "/sys/fs/cgroup/freezer/allox/.freezer-hold-$1"
}

drop_hold() {
	[ -d "$(hold_of "$1")" ] || return 0
	echo THAWED >"$(hold_of "$1")/freezer.state" 2>/dev/null
	rmdir "$(hold_of "$1")" 2>/dev/null
}

# rmdir_cgroups ID: remove what is left of a sandbox's cgroups; true once none is.
rmdir_cgroups() {
	rmdir /sys/fs/cgroup/*/allox/"$1" /sys/fs/cgroup/allox/"$1" 2>/dev/null
	[ -z "$(ls -d /sys/fs/cgroup/*/allox/"$1" /sys/fs/cgroup/allox/"$1" 2>/dev/null)" ]
}
trap 'stop_engine; rm -rf "$TMP"' EXIT

# alive PID: a process that runs (a zombie has ended; the host's init may be slow to reap it).
alive() {
	[ -e "/proc/$1/stat" ] && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat"
}

# gone PID: the process has ended (for wait_until after a kill).
gone() {
	! alive "$1"
}

# wait_until SECONDS CMD...: poll every 50 ms.
wait_until() {
	limit=$(( $1 * 20 ))
	shift
	i=0
	while [ $i -lt $limit ]; do
		"$@" && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

# homes [DIR...]: the ALLOX_HOMEs of this test: those under $TMP, and each DIR.
homes() {
	for h_dir in "$TMP"/*/ "$@"; do
		[ -d "$h_dir/engine" ] && echo "${h_dir%/}"
	done
}

# sandbox_ids [DIR...]: the id of every sandbox the engines of homes [DIR...]
# created: their logs name each one, failed or removed, and their records
# name the rest.
sandbox_ids() {
	for s_home in $(homes "$@"); do
		cat "$s_home/engine.log" 2>/dev/null
		ls "$s_home/engine/sandboxes" 2>/dev/null
	done | grep -oE '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}' | sort -u
}

# live_sandbox ID [DIR...]: a running engine has it Running or Paused, so its cgroups stay.
live_sandbox() {
	l_id=$1
	shift
	for l_home in $(homes "$@"); do
		l_pid=$(cat "$l_home/run/engine.pid" 2>/dev/null)
		[ -n "$l_pid" ] && alive "$l_pid" &&
			jq -e '.status.state == "Running" or .status.state == "Paused"' \
				"$l_home/engine/sandboxes/$l_id/record.json" >/dev/null 2>&1 && return 0
	done
	return 1
}

# cgroups_left [DIR...]: the cgroup directories (<hierarchy>/allox/<id>, or
# allox/<id> on a cgroup2-only host) left of this test's sandboxes that no
# longer run. Only these ids are looked at: other homes share allox/.
cgroups_left() {
	for c_id in $(sandbox_ids "$@"); do
		c_left=$(ls -d /sys/fs/cgroup/*/allox/"$c_id" /sys/fs/cgroup/allox/"$c_id" 2>/dev/null)
		[ -n "$c_left" ] && ! live_sandbox "$c_id" "$@" && echo "$c_left"
	done
}

no_cgroups_left() {
	[ -z "$(cgroups_left "$@")" ]
}

# expect_no_cgroups_left [DIR...]: every sandbox of this test that ended
# (deleted, expired, failed to start, found dead, or all of them once the
# engine is stopped) took its cgroups with it. The engine removes them as it
# notices; give its reaper a few rounds.
expect_no_cgroups_left() {
	if [ -z "$(ls -d /sys/fs/cgroup/*/allox /sys/fs/cgroup/allox 2>/dev/null)" ]; then
		echo "# skipped: no allox cgroups on this host" >&2
		return 0
	fi
	wait_until 15 no_cgroups_left "$@" || fail "cgroups left behind: $(cgroups_left "$@" | tr '\n' ' ')"
}

# expect_clean_stop [DIR...]: no cgroup is left of the sandboxes that ended,
# and none of any once stop_engine has ended the rest (a test's last case).
expect_clean_stop() {
	expect_no_cgroups_left "$@"
	stop_engine
	expect_no_cgroups_left "$@"
}
