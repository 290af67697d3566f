#!/bin/sh
# Faults: a server that refuses, hangs, fails or turns us away; the
# engine or a sandbox's agent killed mid-command; a full disk under a download.
# Each case checks what the user sees: one clear line, the exit status, no
# partial file, and consistent state afterwards.
. "${TESTS_DIR:-tests}/cli/lib.sh"
. "${TESTS_DIR:-tests}/cli/engine_lib.sh"

FAKE_HTTP=${FAKE_HTTP:-$(dirname "$ALLOX_CLI")/tests/helpers/fake_http}
FAKE_PID=""
MNT=""
cleanup() {
	[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	stop_engine
	rm -rf "$TMP"
}
trap cleanup EXIT

# One clear line: exactly one "Error: " line that says WHAT, at most one hint
# line after it, nothing else (no stack of messages).
expect_one_error() {
	head -n 1 "$TMP/err" | grep -q '^Error: ' || fail "stderr does not start with one Error: line"
	grep -qF -- "$1" "$TMP/err" || fail "stderr lacks: $1"
	[ "$(grep -c '^Error' "$TMP/err")" -eq 1 ] || fail "more than one error line"
	[ "$(wc -l < "$TMP/err")" -le 2 ] || fail "more than an error and a hint on stderr"
}

# fake STEP...: start the scripted server; PORT is its port, $TMP/requests its log.
fake() {
	stop_fake
	: > "$TMP/requests"
	rm -f "$TMP/port"
	"$FAKE_HTTP" --log "$TMP/requests" --portfile "$TMP/port" --lifetime 120 "$@" >/dev/null &
	FAKE_PID=$!
	wait_until 10 test -s "$TMP/port" || { echo "fake_http did not start" >&2; exit 1; }
	PORT=$(cat "$TMP/port")
	allox config set connection.domain "http://127.0.0.1:$PORT" >/dev/null
}
stop_fake() {
	[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null && wait "$FAKE_PID" 2>/dev/null
	FAKE_PID=""
}
requests() {
	grep -c "^$1 " "$TMP/requests"
}
expect_requests() {
	n=$(requests "$1")
	[ "$n" -eq "$2" ] || fail "$n $1 requests, expected $2"
}

EMPTY_PAGE='200:{"items":[],"pagination":{"page":1,"pageSize":200,"totalPages":0,"totalItems":0,"hasNextPage":false}}'

# ---------- the server side: refused, timeout, 5xx, 401, retries ----------

t "connection refused: one line, exit 1, the GET retried 3 times in all"
fake 200
stop_fake   # the port is closed now
run allox sandbox list
expect_rc 1
expect_one_error "Connection refused"
run allox --verbose sandbox list
expect_rc 1
[ "$(grep -c '^\[verbose\] GET ' "$TMP/err")" -eq 3 ] || fail "not 3 attempts"
grep -q '^\[verbose\]   retry 2/3 in [0-9]* ms: ' "$TMP/err" || fail "retry 2 not shown"
grep -q '^\[verbose\]   retry 3/3 in [0-9]* ms: ' "$TMP/err" || fail "retry 3 not shown"
[ "$(grep -c '^Error' "$TMP/err")" -eq 1 ] || fail "more than one error line"

t "timeout: a server that never answers, request_timeout 1: one line, 3 bounded attempts"
fake hang
allox config set connection.request_timeout 1 >/dev/null
run allox sandbox list
expect_rc 1
expect_one_error "timed out"
expect_requests GET 3
allox config set connection.request_timeout 30 >/dev/null

t "empty reply (connection closed): retried, then one line"
fake close
run allox sandbox list
expect_rc 1
expect_one_error "empty reply from server"
expect_requests GET 3

t "503, 503, 200 on a GET: succeeds on the third attempt; --verbose shows the retries"
fake 503 503 "$EMPTY_PAGE"
run allox --verbose sandbox list -o json
expect_rc 0
[ "$(cat "$TMP/out")" = "[]" ] || fail "not the empty list"
expect_requests GET 3
[ "$(grep -c 'retry [23]/3 in [0-9]* ms: HTTP 503' "$TMP/err")" -eq 2 ] || fail "retries not shown"

t "503 on every GET: bounded at 3 attempts, then one line"
fake '503:{"code":"UNAVAILABLE","message":"overloaded"}'
run allox sandbox list
expect_rc 1
expect_one_error "overloaded"
expect_requests GET 3

t "500 on a GET is an answer: not retried, one line"
fake '500:{"code":"GENERAL::UNKNOWN_ERROR","message":"it broke"}'
run allox sandbox list
expect_rc 1
expect_one_error "it broke"
expect_requests GET 1

t "503 on a POST (create) is not retried"
fake '503:{"code":"UNAVAILABLE","message":"overloaded"}'
run allox sandbox create --skip-health-check
expect_rc 1
expect_one_error "overloaded"
expect_requests POST 1
[ "$(wc -l < "$TMP/requests")" -eq 1 ] || fail "other requests made"

t "502 on a DELETE (kill) is not retried"
fake '502:{"code":"BAD_GATEWAY","message":"upstream down"}'
run allox sandbox kill 0b7a5f4e-0000-4000-8000-000000000001
expect_rc 1
expect_one_error "upstream down"
expect_requests DELETE 1

t "401: one line naming the refusal, not retried; -o json gives one JSON error"
fake '401:{"code":"UNAUTHORIZED","message":"missing or wrong API key"}'
run allox sandbox list
expect_rc 1
expect_one_error "missing or wrong API key"
expect_requests GET 1
run allox sandbox list -o json
expect_rc 1
expect_empty_out
[ "$(wc -l < "$TMP/err")" -eq 1 ] || fail "not one line"
jq -e '.error.message | contains("missing or wrong API key")' "$TMP/err" >/dev/null || fail "not a JSON error"
# The server is the lifecycle API and the sandbox's runtime at once: the
# endpoint answer points back at it.
ENDPOINT='200:{"endpoint":"127.0.0.1:{PORT}","headers":{"X-EXECD-ACCESS-TOKEN":"t"}}'
SID=0b7a5f4e-0000-4000-8000-000000000001

t "a streamed download (file cat) that loses its connection is not retried"
fake "$ENDPOINT" close
run allox file cat "$SID" /etc/hostname
expect_rc 1
expect_one_error "empty reply from server"
[ "$(grep -c '^GET /files/download' "$TMP/requests")" -eq 1 ] || fail "the stream was retried"

t "a download cut off mid-body (past what one read holds) fails with one line and leaves nothing"
# 1 MiB of 4 announced: the client has switched to splicing into the file.
fake "$ENDPOINT" 'short:4194304:1048576'
run allox file download "$SID" /home/gem/big "$TMP/cut"
expect_rc 1
expect_one_error "closed before the response was complete"
[ ! -e "$TMP/cut" ] || fail "partial file left: $(wc -c < "$TMP/cut") bytes"
ls "$TMP" | grep -q '^cut\.' && fail "temporary file left: $(ls "$TMP")"

t "a command (run, a POST stream) that meets 503 is not retried"
fake "$ENDPOINT" '503:{"code":"UNAVAILABLE","message":"busy"}'
run allox run "$SID" echo hi
expect_rc 1
expect_one_error "busy"
expect_requests POST 1
stop_fake
allox config set connection.domain local >/dev/null

# ---------- the local engine and the sandbox's agent ----------

# new_sandbox: a sandbox whose runtime answers; sets ID.
new_sandbox() {
	run allox sandbox create --skip-health-check --entrypoint /bin/sh --entrypoint -c \
		--entrypoint 'echo ready > /home/gem/ready; exec sleep 100000' -o json
	ID=$(jq -r .id "$TMP/out")
	[ -n "$ID" ] && [ "$ID" != null ] || { cat "$TMP/err" >&2; echo "cannot create a sandbox" >&2; exit 1; }
	wait_until 20 sh -c '[ "$("$ALLOX_CLI" file cat /home/gem/ready 2>/dev/null)" = ready ]' ||
		echo "warning: the sandbox's runtime does not answer yet" >&2
}
init_of() {
	jq -r '.runtime.initPid // empty' "$STATE/$1/record.json" 2>/dev/null
}
engine_gone() {
	! alive "$1"
}
kill_engine() {
	old=$(engine_pid)
	kill -9 "$old"
	wait_until 10 engine_gone "$old" || fail "engine $old survived kill -9"
}
state_is() {
	[ "$("$ALLOX_CLI" sandbox get "$1" -o json 2>/dev/null | jq -r .state)" = "$2" ]
}

t "engine killed during create: one line, exit 1; the next engine removes the half-made sandbox"
allox sandbox list >/dev/null    # an engine without the delay hook...
kill_engine                      # ...goes, so the next command starts one with it
before=$(ls "$STATE" 2>/dev/null | wc -l)
ALLOX_ENGINE_TEST_CREATE_DELAY_MS=60000 "$ALLOX_CLI" sandbox create --skip-health-check \
	--entrypoint /bin/sh --entrypoint -c --entrypoint 'exec sleep 100000' >"$TMP/out" 2>"$TMP/err" &
cli=$!
# The hook holds the sandbox between spawn and Running: its record is Pending, with a runtime.
pending() {
	for r in "$STATE"/*/record.json; do
		jq -e '.status.state == "Pending" and .runtime.initPid > 0' "$r" >/dev/null 2>&1 && return 0
	done
	return 1
}
wait_until 30 pending || fail "no Pending sandbox with a runtime"
half=$(basename "$(dirname "$(grep -l '"Pending"' "$STATE"/*/record.json | head -n 1)")")
half_init=$(init_of "$half")
kill_engine
wait "$cli"
rc=$?
expect_rc 1
expect_one_error "POST $ALLOX_HOME/run/engine.sock: "
# The engine died with the request read: curl sees the connection end (or,
# had bytes been left unread, reset) without an answer.
grep -Eq "empty reply from server|Connection reset by peer|closed before the response was complete" "$TMP/err" || fail "not a lost connection"
expect_empty_out
run allox sandbox list -o json  # starts the next engine
expect_rc 0
jq -e --arg id "$half" 'map(select(.id == $id)) | length == 0' "$TMP/out" >/dev/null || fail "half-made sandbox listed"
[ ! -e "$STATE/$half" ] || fail "state dir of the half-made sandbox left"
[ "$(ls "$STATE" | wc -l)" -eq "$before" ] || fail "state dirs: $(ls "$STATE")"
[ -n "$half_init" ] && alive "$half_init" && fail "the half-made sandbox's agent still runs"
for cg in /sys/fs/cgroup/*/allox/"$half" /sys/fs/cgroup/allox/"$half"; do
	[ -e "$cg" ] && fail "cgroup left: $cg"
done
grep -q "removing $half: the engine stopped while creating it" "$ALLOX_HOME/engine.log" || fail "not logged"

t "engine killed while spawning (no runtime saved yet): the next engine ends what started and removes its cgroups"
# What such an engine leaves: a Pending record without a runtime, and the
# sandbox's cgroups with a process in them (bwrap had started).
kill_engine
# make_cgroups ID: what the engine makes for a sandbox; the paths (under /sys/fs/cgroup) in $made.
make_cgroups() {
	made=""
	for h in freezer memory pids cpu; do
		[ -d "/sys/fs/cgroup/$h/allox" ] && mkdir "/sys/fs/cgroup/$h/allox/$1" 2>/dev/null && made="$made $h/allox/$1"
	done
	[ -n "$made" ] || { [ -f /sys/fs/cgroup/allox/cgroup.procs ] && mkdir "/sys/fs/cgroup/allox/$1" 2>/dev/null && made=allox/$1; }
}
half=$(cat /proc/sys/kernel/random/uuid)
make_cgroups "$half"
if [ -z "$made" ]; then
	echo "# skipped: cannot create a cgroup under /sys/fs/cgroup/*/allox" >&2
else
	sleep 100000 &
	spawned=$!
	for cg in $made; do
		echo "$spawned" > "/sys/fs/cgroup/$cg/cgroup.procs" || fail "cannot move $spawned into $cg"
	done
	mkdir -p "$STATE/$half"
	jq -n --arg id "$half" '{id: $id, image: {uri: "host"}, status: {state: "Pending", reason: "SANDBOX_STARTING"}}' \
		> "$STATE/$half/record.json"
	run allox sandbox list -o json  # starts the next engine
	expect_rc 0
	jq -e --arg id "$half" 'map(select(.id == $id)) | length == 0' "$TMP/out" >/dev/null || fail "half-made sandbox listed"
	[ ! -e "$STATE/$half" ] || fail "state dir of the half-made sandbox left"
	wait_until 10 gone "$spawned" || fail "its process still runs"
	for cg in $made; do
		[ -e "/sys/fs/cgroup/$cg" ] && fail "cgroup left: /sys/fs/cgroup/$cg"
	done
	grep -q "removing $half: the engine stopped while creating it" "$ALLOX_HOME/engine.log" || fail "not logged"
	# Whatever the outcome, nothing of it outlives the test.
	kill -9 "$spawned" 2>/dev/null
	wait "$spawned" 2>/dev/null
	wait_until 5 rmdir_cgroups "$half"
fi

t "a Terminated sandbox whose cgroups are still there (their removal failed): the next engine removes them"
kill_engine
dead=$(cat /proc/sys/kernel/random/uuid)
make_cgroups "$dead"
if [ -z "$made" ]; then
	echo "# skipped: cannot create a cgroup under /sys/fs/cgroup/*/allox" >&2
else
	sh -c 'exit 0' &
	gone_pid=$!
	wait "$gone_pid"
	mkdir -p "$STATE/$dead"
	jq -n --arg id "$dead" --argjson pid "$gone_pid" '{id: $id, image: {uri: "host"},
		status: {state: "Terminated", reason: "SANDBOX_EXITED"},
		runtime: {pid: $pid, start: 1, initPid: $pid, initStart: 1, cgroup: true}}' > "$STATE/$dead/record.json"
	run allox sandbox get "$dead" -o json  # starts the next engine
	expect_rc 0
	jq -e '.state == "Terminated"' "$TMP/out" >/dev/null || fail "not kept as Terminated"
	for cg in $made; do
		[ -e "/sys/fs/cgroup/$cg" ] && fail "cgroup left: /sys/fs/cgroup/$cg"
	done
	run allox sandbox kill "$dead"
	expect_rc 0
	wait_until 5 rmdir_cgroups "$dead"
fi

new_sandbox

t "engine killed during a streamed run: the run completes (the engine is not in its data path)"
# run talks to the sandbox's agent directly once it has the endpoint; killing
# the engine then must not disturb it, and the sandbox outlives the engine.
"$ALLOX_CLI" run -- sh -c 'echo a; sleep 3; echo b' >"$TMP/out" 2>"$TMP/err" &
cli=$!
wait_until 20 grep -q '^a$' "$TMP/out" || fail "no first line"
kill_engine
wait "$cli"
rc=$?
expect_rc 0
expect_out "a
b"
[ ! -s "$TMP/err" ] || fail "stderr not empty"
run allox sandbox get "$ID" -o json   # the next engine re-adopts it
expect_rc 0
jq -e '.state == "Running"' "$TMP/out" >/dev/null || fail "not re-adopted"
grep -q "re-adopted $ID (Running)" "$ALLOX_HOME/engine.log" || fail "re-adoption not logged"

t "engine killed during a download: the download completes, nothing partial left"
run allox run -- sh -c 'head -c 33554432 /dev/urandom > /home/gem/big'
expect_rc 0
run allox run -- sha256sum /home/gem/big
want=$(cut -d' ' -f1 "$TMP/out")
mkdir -p "$TMP/dl"
# Hold the agent so the download is in flight (its staging file exists, the
# engine already asked) when the engine dies; then let it go on.
agent=$(init_of "$ID")
kill -STOP "$agent"
"$ALLOX_CLI" file download /home/gem/big "$TMP/dl/big" >"$TMP/out" 2>"$TMP/err" &
cli=$!
staging() {
	[ -n "$(find "$TMP/dl" -name '.big.*.part')" ]
}
wait_until 20 staging || fail "no staging file"
kill_engine
kill -CONT "$agent"
wait "$cli"
rc=$?
expect_rc 0
[ "$(sha256sum < "$TMP/dl/big" | cut -d' ' -f1)" = "$want" ] || fail "download differs"
[ "$(ls -A "$TMP/dl")" = big ] || fail "left in the target dir: $(ls -A "$TMP/dl")"

t "engine killed during an upload: the upload completes (CLI -> agent directly)"
head -c 33554432 /dev/urandom > "$TMP/up.bin"
want=$(sha256sum < "$TMP/up.bin" | cut -d' ' -f1)
port=$(jq -r .runtime.agentPort "$STATE/$ID/record.json")
agent=$(init_of "$ID")
kill -STOP "$agent"
"$ALLOX_CLI" file upload "$TMP/up.bin" /home/gem/up.bin >"$TMP/out" 2>"$TMP/err" &
cli=$!
# Connected to the held agent: the engine's part (the endpoint) is done.
to_agent() {
	ss -Htnp state established "( dport = :$port )" 2>/dev/null | grep -q "pid=$cli,"
}
wait_until 20 to_agent || fail "the upload did not reach the agent"
kill_engine
kill -CONT "$agent"
wait "$cli"
rc=$?
expect_rc 0
run allox run -- sha256sum /home/gem/up.bin
[ "$(cut -d' ' -f1 "$TMP/out")" = "$want" ] || fail "upload differs"

t "agent killed: sandbox get says so; run and file commands fail with one line, exit 1"
agent=$(init_of "$ID")
kill -9 "$agent"
wait_until 20 state_is "$ID" Terminated || fail "state not Terminated"
expect_no_cgroups_left   # found dead: its cgroups go now, not at delete
run allox sandbox get "$ID" -o json
expect_rc 0
jq -e --arg pid "$agent" '.state == "Terminated" and (.message | contains("agent (allox-agent, pid \($pid))"))
	and (.message | test("killed by signal 9|is gone$|ended while the engine was down$"))' "$TMP/out" >/dev/null ||
	fail "status does not name the agent's end"
run allox sandbox get "$ID"
expect_rc 0
expect_out_has "message:"
# The dispatcher explains every runtime command's failure (file ls, jupyter and
# mcp said only that the connection failed).
for cmd in "run -- echo hi" "file cat /home/gem/ready" "file write /home/gem/x --content x" \
	"file download /home/gem/ready $TMP/dl/ready" "file upload $TMP/requests /home/gem/requests" \
	"file ls /home/gem" "aio jupyter run -c 1" "aio mcp servers"; do
	# shellcheck disable=SC2086 # word splitting is the point
	run allox $cmd
	expect_rc 1
	expect_one_error "sandbox $ID is Terminated: the sandbox's agent (allox-agent, pid $agent)"
	[ "$(wc -l < "$TMP/err")" -eq 1 ] || fail "$cmd: more than one line"
done
[ ! -e "$TMP/dl/ready" ] || fail "download of a dead sandbox left a file"
[ -z "$(find "$TMP/dl" -name '.*.part')" ] || fail "staging file left"
run allox sandbox kill "$ID"
expect_rc 0

t "agent killed in a sandbox this engine started: the status names the signal"
# $ID above was re-adopted by a later engine, which is not its bwrap's parent
# and so cannot learn how the agent ended; this engine started this one.
new_sandbox
agent=$(init_of "$ID")
kill -9 "$agent"
wait_until 20 state_is "$ID" Terminated || fail "state not Terminated"
expect_no_cgroups_left   # found dead: its cgroups go now, not at delete
run allox sandbox get "$ID" -o json
jq -e --arg pid "$agent" '.message == "the sandbox'"'"'s agent (allox-agent, pid \($pid)) was killed by signal 9 (Killed)"' \
	"$TMP/out" >/dev/null || fail "the signal is not named"
run allox sandbox kill "$ID"
expect_rc 0

t "disk full during a download: one line naming it, exit 1, nothing left on the disk"
new_sandbox
run allox run -- sh -c 'head -c 4194304 /dev/urandom > /home/gem/big4'
expect_rc 0
MNT="$TMP/small"
mkdir -p "$MNT"
if mount -t tmpfs -o size=1m tmpfs "$MNT" 2>"$TMP/mount.err"; then
	run allox file download /home/gem/big4 "$MNT/big4"
	expect_rc 1
	expect_one_error "Cannot write $MNT/big4: No space left on device"   # the target, not the staging name
	[ -z "$(ls -A "$MNT")" ] || fail "left on the full disk: $(ls -A "$MNT")"
	run allox file download -r /home/gem "$MNT/tree"
	expect_rc 1
	expect_one_error "No space left on device"
	[ -z "$(ls -A "$MNT")" ] || fail "left on the full disk after -r: $(ls -A "$MNT")"
	umount "$MNT" && MNT=""
else
	echo "skip: disk full: cannot mount a tmpfs: $(cat "$TMP/mount.err")" >&2
fi

t "no cgroup is left of a sandbox of this test: ended ones, then all once the engine stops"
expect_clean_stop

done_testing
