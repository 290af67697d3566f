# Helpers for shell tests that run a real local engine in the test's ALLOX_HOME
# (source after lib.sh). The trap ends the engine and every sandbox it started.

STATE="$ALLOX_HOME/engine/sandboxes"

engine_pid() {
	cat "$ALLOX_HOME/run/engine.pid" 2>/dev/null
}

stop_engine() {
	pid=$(engine_pid)
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	# kill returns before the process is gone; until then its socket still
	# accepts connections and resets them as it dies (seen under ASan, whose
	# teardown is slow), so a test that starts a new engine next must wait.
	[ -n "$pid" ] && wait_until 10 gone "$pid"
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
		rmdir /sys/fs/cgroup/*/allox/"${d##*/}" /sys/fs/cgroup/allox/"${d##*/}" 2>/dev/null
	done
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
