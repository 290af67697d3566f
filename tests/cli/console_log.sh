#!/bin/sh
# A sandbox's console.log is capped and rotated: whoever writes
# inside, console.log and console.log.1 stay under the engine's cap on the
# host, the newest output is at the end of console.log, and the agent's
# console fds (and the rest of PID 1's /proc) are out of reach inside.
. "${TESTS_DIR:-tests}/cli/lib.sh"
. "${TESTS_DIR:-tests}/cli/engine_lib.sh"

CAP=1048576

# inside [ID] CMD: run CMD (a shell line) in sandbox ID (default: the current one).
inside() {
	if [ $# -gt 1 ]; then
		run timeout 120 "$ALLOX_CLI" run "$1" "$2"
	else
		run timeout 120 "$ALLOX_CLI" run -- "$1"
	fi
}

size() {
	stat -c %s "$1" 2>/dev/null || echo 0
}

# expect_capped ID: console.log and console.log.1 of sandbox ID are each within the cap.
expect_capped() {
	c_log=$(size "$STATE/$1/console.log")
	c_old=$(size "$STATE/$1/console.log.1")
	[ "$c_log" -le "$CAP" ] || fail "console.log is $c_log bytes (cap $CAP)"
	[ "$c_old" -le "$CAP" ] || fail "console.log.1 is $c_old bytes (cap $CAP)"
}

# create [ENTRYPOINT]: a sandbox (with a shell line as its entrypoint); its id in $ID.
create() {
	if [ $# -gt 0 ]; then
		run allox sandbox create --entrypoint sh --entrypoint -c --entrypoint "$1" -o json
	else
		run allox sandbox create -o json
	fi
	expect_rc 0
	ID=$(jq -r .id "$TMP/out")
}

t "--console-log-max takes a size from 64Ki to 1Ti"
run "$ALLOX_ENGINE" --home "$TMP/other" --console-log-max 1K
expect_rc 2
expect_err_has "--console-log-max: expected a size from 64Ki to 1Ti, got '1K'"
run "$ALLOX_ENGINE" --home "$TMP/other" --console-log-max lots
expect_rc 2
run "$ALLOX_AGENT" --listen-fd 3 --token-fd 4 --sandbox-id x --log-max 100
expect_rc 2
expect_err_has "--log-rotate-fd and --log-max go together"

t "the engine starts with a cap; the agent logs as before"
run "$ALLOX_ENGINE" --home "$ALLOX_HOME" --console-log-max 1Mi
expect_rc 0
create
A=$ID
grep -q "^allox-agent: allox-agent .* for sandbox $A (pid 1)$" "$STATE/$A/console.log" ||
	fail "no start line in console.log: $(head -c 500 "$STATE/$A/console.log")"
grep -q "^allox-agent: serving on 127.0.0.1:" "$STATE/$A/console.log" || fail "no serving line"
[ -f "$STATE/$A/console.log.1" ] || fail "no console.log.1"

t "inside, PID 1's console fds and its /proc files are refused"
INIT=$(jq -r .runtime.initPid "$STATE/$A/record.json")
R=$(tr '\0' '\n' <"/proc/$INIT/cmdline" | sed -n '/^--log-rotate-fd$/{n;p;}')
[ -n "$R" ] || fail "the agent has no --log-rotate-fd"
inside "for f in 1 2 $R; do (head -c 209715200 /dev/zero > /proc/1/fd/\$f) 2>&1; done;
	cat /proc/1/environ 2>&1 >/dev/null; ls -l /proc/1/fd/1 2>&1 >/dev/null; true"
[ "$(grep -c -e 'Permission denied' -e 'Operation not permitted' "$TMP/out")" -eq 5 ] ||
	fail "not refused: $(cat "$TMP/out")"
expect_capped "$A"
[ "$(size "$STATE/$A/console.log")" -lt 65536 ] || fail "console.log grew: $(size "$STATE/$A/console.log")"
if command -v python3 >/dev/null; then
	# PTRACE_SEIZE does not stop the agent, should it succeed.
	inside 'python3 -c "import ctypes; l = ctypes.CDLL(None, use_errno=True); print(l.ptrace(0x4206, 1, 0, 0), ctypes.get_errno())"'
	expect_out "-1 1"
fi

t "200 MiB written through the entrypoint's stdout: both files stay under the cap"
inside 'p=$(sed -n "s/.*\"pid\":\([0-9]*\).*/\1/p" /run/allox/entrypoint.json);
	yes attack | head -c 209715200 > /proc/$p/fd/1; echo "rc=$?"; { echo; echo after-attack; } > /proc/$p/fd/2'
expect_out "rc=0"
wait_until 20 grep -qx after-attack "$STATE/$A/console.log" || fail "the last line is not in console.log"
expect_capped "$A"
tail -n 1 "$STATE/$A/console.log" | grep -qx after-attack || fail "console.log does not end with the newest line"
grep -qx attack "$STATE/$A/console.log.1" || fail "console.log.1 does not hold the output before"

t "an entrypoint writing 50 MB: within twice the cap, the newest output last, the agent's line after it"
create 'yes x | head -c 50000000; echo end-of-output'
B=$ID
wait_until 60 grep -q "^allox-agent: entrypoint pid [0-9]* exited with status 0$" "$STATE/$B/console.log" ||
	fail "the agent did not log the entrypoint's end: $(tail -c 300 "$STATE/$B/console.log")"
expect_capped "$B"
[ $(($(size "$STATE/$B/console.log") + $(size "$STATE/$B/console.log.1"))) -le $((2 * CAP)) ] || fail "over 2x the cap"
[ "$(tail -n 2 "$STATE/$B/console.log" | sed 's/pid [0-9]*/pid N/')" = "end-of-output
allox-agent: entrypoint pid N exited with status 0" ] || fail "console.log ends with: $(tail -n 3 "$STATE/$B/console.log")"
[ "$(size "$STATE/$B/console.log.1")" -gt $((CAP / 2)) ] || fail "console.log.1 holds $(size "$STATE/$B/console.log.1") bytes"
grep -qx x "$STATE/$B/console.log.1" || fail "console.log.1 does not hold the output before"

t "an entrypoint that never stops writing: under the cap all along, the agent still serves"
create 'exec yes flood'
C=$ID
# Caps hold at every look; the flood rotates the log within 10 s even on a
# loaded machine (a fixed 1 s was too short for a slow start).
i=0
while [ $i -lt 100 ]; do
	expect_capped "$C"
	[ $i -ge 10 ] && [ "$(size "$STATE/$C/console.log.1")" -gt 0 ] && break
	sleep 0.1
	i=$((i + 1))
done
inside "$C" 'echo still-serving'
expect_out "still-serving"
[ "$(size "$STATE/$C/console.log.1")" -gt 0 ] || fail "no rotation under a flood"
run allox sandbox kill "$C"
expect_rc 0

t "the other sandboxes are unaffected and clean up"
inside "$B" 'echo fine'
expect_out "fine"
expect_clean_stop

done_testing
