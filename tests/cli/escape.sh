#!/bin/sh
# Attacks from inside a sandbox: each check does what code running
# as root in a sandbox would try against the host or the engine, and passes
# when the attack gets nowhere. A check is a function check_NAME listed in
# CHECKS; it runs against the sandbox $SB (attacked) beside $OTHER (a
# bystander), both in this test's ALLOX_HOME, and reports through fail.
# To add an attack: write check_NAME, append NAME to CHECKS (or to
# LATE_CHECKS when it needs the engine's create hook).
# ESCAPE_ONLY="NAME..." runs only those (e.g. to watch one fail against an
# older engine).
. "${TESTS_DIR:-tests}/cli/lib.sh"
. "${TESTS_DIR:-tests}/cli/engine_lib.sh"

SOCK="$ALLOX_HOME/run/engine.sock"
# A marker only a host file holds: the sandbox must never see it through the engine.
MARK="host-marker-$$-$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')"

# api PATH: the engine's answer, straight from its socket, within 10 s.
api() {
	curl -s --max-time 10 --unix-socket "$SOCK" "http://x/v1$1"
}

# inside SCRIPT: run it with sh as root in $SB.
inside() {
	timeout 60 "$ALLOX_CLI" run "$SB" -- sh -c "$1" >"$TMP/inside.out" 2>&1 && return 0
	fail "in the sandbox: $1: $(cat "$TMP/inside.out")"
	return 1
}

# prompt CMD...: CMD succeeds within $BOUND s (an engine blocked on a file
# or behind a start would not answer).
BOUND=10
prompt() {
	timeout "$BOUND" "$@" >"$TMP/out" 2>"$TMP/err" || fail "no answer within $BOUND s (rc $?): $*"
}

# answers_promptly: list, and get of $SB and of $OTHER, through the CLI and the API.
answers_promptly() {
	prompt "$ALLOX_CLI" sandbox list -o json
	prompt "$ALLOX_CLI" sandbox get "$SB" -o json
	prompt "$ALLOX_CLI" sandbox get "$OTHER" -o json
	prompt curl -sf --max-time 10 --unix-socket "$SOCK" "http://x/v1/sandboxes"
}

# plain_status: $SB shows Running with no entrypoint reason or message (the
# planted file was refused) and nothing of the host marker, in get and list.
plain_status() {
	api "/sandboxes/$SB" >"$TMP/get.json"
	jq -e '.status.state == "Running" and .status.reason == "SANDBOX_RUNNING" and (.status.message // "") == ""' \
		"$TMP/get.json" >/dev/null || fail "status of the attacked sandbox: $(head -c 300 "$TMP/get.json")"
	api "/sandboxes?pageSize=200" >"$TMP/list.json"
	grep -q "$MARK" "$TMP/get.json" "$TMP/list.json" && fail "the engine read a host file for the sandbox"
	jq -e --arg id "$SB" '.items | map(select(.id == $id and .status.state == "Running")) | length == 1' \
		"$TMP/list.json" >/dev/null || fail "list: $(head -c 300 "$TMP/list.json")"
}

# watch_opens FILE: from now until unwatch, note each open of host FILE
# (inotify IN_OPEN, which FIFOs report too) as a line in $TMP/opens.
watch_opens() {
	: >"$TMP/opens"
	python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(0)
if fd < 0 or libc.inotify_add_watch(fd, sys.argv[1].encode(), 0x20) < 0:   # IN_OPEN
    sys.exit("inotify: " + os.strerror(ctypes.get_errno()))
print("ready", flush=True)
with open(sys.argv[2], "a") as out:
    while os.read(fd, 4096):
        out.write("opened\n")
        out.flush()
' "$1" "$TMP/opens" >"$TMP/watch.out" 2>&1 &
	WATCH=$!
	wait_until 10 grep -q ready "$TMP/watch.out" || fail "cannot watch $1: $(cat "$TMP/watch.out")"
}

# unwatch: stop watching; fail if the watched file was opened.
unwatch() {
	kill "$WATCH" 2>/dev/null
	wait "$WATCH" 2>/dev/null
	[ ! -s "$TMP/opens" ] || fail "the engine opened the host file the sandbox's symlink points at"
}

# plant CMD: replace the agent's entrypoint status file in $SB by what CMD
# makes at $F (run inside, with F set).
plant() {
	inside "F=/run/allox/entrypoint.json; rm -rf \$F; $1"
}

# ---------- the agent's entrypoint status file, which the engine reads ----------

# Control: a regular status file is still read (this is what the agent writes).
check_status_file_read() {
	plant 'printf "{\"state\":\"exited\",\"exitCode\":7}" > $F'
	api "/sandboxes/$SB" >"$TMP/get.json"
	jq -e '.status.reason == "ENTRYPOINT_EXITED" and .status.message == "entrypoint exited with code 7"' \
		"$TMP/get.json" >/dev/null || fail "a regular status file is not read: $(cat "$TMP/get.json")"
}

check_status_fifo() {
	plant 'mkfifo $F'
	answers_promptly
	plain_status
}

check_status_symlink_shadow() {
	plant 'ln -s /etc/shadow $F'
	answers_promptly
	plain_status
}

check_status_symlink_host_file() {
	printf '{"state":"failed","error":"%s"}' "$MARK" >"$TMP/marker.json"
	watch_opens "$TMP/marker.json"
	plant "ln -s '$TMP/marker.json' \$F"
	answers_promptly
	plain_status
	unwatch
}

# A symlink earlier in the path: /run/allox itself points at a host directory.
check_status_symlink_dir() {
	mkdir -p "$TMP/hostdir"
	printf '{"state":"failed","error":"%s"}' "$MARK" >"$TMP/hostdir/entrypoint.json"
	watch_opens "$TMP/hostdir/entrypoint.json"
	inside "mv /run/allox /run/allox.moved && ln -s '$TMP/hostdir' /run/allox"
	answers_promptly
	plain_status
	unwatch
	inside 'rm /run/allox && mv /run/allox.moved /run/allox'
}

# A host FIFO nobody writes to: opening it would block the engine for good.
check_status_symlink_host_fifo() {
	mkfifo "$TMP/trap.fifo"
	watch_opens "$TMP/trap.fifo"
	plant "ln -s '$TMP/trap.fifo' \$F"
	answers_promptly
	plain_status
	unwatch
}

check_status_symlink_dev_zero() {
	plant 'ln -s /dev/zero $F'
	answers_promptly
	plain_status
}

# 100 MB of valid JSON: parsed whole, it would cost the engine its size in
# memory (and every answer would carry it).
check_status_huge() {
	plant '{ printf "{\"state\":\"failed\",\"error\":\""; head -c 104857600 /dev/zero | tr "\0" x; printf "\"}"; } > $F'
	before=$(awk '/^VmHWM/ { print $2 }' "/proc/$(engine_pid)/status")
	answers_promptly
	plain_status
	after=$(awk '/^VmHWM/ { print $2 }' "/proc/$(engine_pid)/status")
	if [ -z "${ALLOX_TEST_NO_RSS:-}" ] && [ $((after - before)) -gt 32768 ]; then
		fail "the engine's peak RSS grew by $((after - before)) KiB"
	fi
	inside 'rm -f /run/allox/entrypoint.json'
}

CHECKS="status_file_read status_fifo status_symlink_shadow status_symlink_host_file status_symlink_dir
	status_symlink_host_fifo status_symlink_dev_zero status_huge"

# ---------- a sandbox's start does not hold up the engine ----------

# with_delayed_engine: restart the engine with the create hook (every create
# then waits DELAY ms between spawn and Running); the sandboxes stay. What
# must not wait behind a start gets half that long.
DELAY=10000
with_delayed_engine() {
	kill -9 "$(engine_pid)"
	wait_until 10 gone "$(engine_pid)"
	ALLOX_ENGINE_TEST_CREATE_DELAY_MS=$DELAY "$ALLOX_CLI" sandbox list >/dev/null 2>&1
	BOUND=5
}

# start_create: a create in the background ($CLI), its id in $NEW once it is
# Pending with a runtime (spawned, held by the hook).
start_create() {
	"$ALLOX_CLI" sandbox create --skip-health-check -o json >"$TMP/create.out" 2>"$TMP/create.err" &
	CLI=$!
	NEW=""
	wait_until 20 pending_one || { fail "no create in progress"; return 1; }
	NEW=$(basename "$(dirname "$(grep -l '"Pending"' "$STATE"/*/record.json | head -n 1)")")
}

pending_one() {
	for r in "$STATE"/*/record.json; do
		jq -e '.status.state == "Pending" and .runtime.initPid > 0' "$r" >/dev/null 2>&1 && return 0
	done
	return 1
}

# still_creating: the create started by start_create has not answered yet.
still_creating() {
	kill -0 "$CLI" 2>/dev/null || fail "the create ended before the checks: they did not run during it"
}

# list, get and kill of another sandbox while a create is in progress.
check_start_holds_no_lock() {
	start_create || return
	prompt "$ALLOX_CLI" sandbox list -o json
	jq -e --arg id "$NEW" 'map(select(.id == $id and .state == "Pending")) | length == 1' "$TMP/out" >/dev/null ||
		fail "the sandbox being created is not listed Pending"
	prompt "$ALLOX_CLI" sandbox get "$OTHER" -o json
	prompt "$ALLOX_CLI" sandbox get "$NEW" -o json
	jq -e '.state == "Pending"' "$TMP/out" >/dev/null || fail "the sandbox being created is not Pending"
	prompt "$ALLOX_CLI" sandbox kill "$OTHER"
	still_creating
	wait "$CLI" || fail "the create failed: $(cat "$TMP/create.err")"
	jq -e '.id' "$TMP/create.out" >/dev/null || fail "create output: $(cat "$TMP/create.out")"
	api "/sandboxes/$NEW" | jq -e '.status.state == "Running"' >/dev/null || fail "the new sandbox does not run"
	# The bystander of the next checks.
	OTHER=$NEW
}

# A checkpoint of a sandbox still starting is refused, as for any sandbox not running.
check_snapshot_of_pending() {
	start_create || return
	code=$(curl -s -o "$TMP/snap.json" -w '%{http_code}' --max-time 10 --unix-socket "$SOCK" -X POST \
		-H 'Content-Type: application/json' -d '{}' "http://x/v1/sandboxes/$NEW/snapshots")
	[ "$code" = 409 ] && jq -e '.code == "SNAPSHOT::INVALID_SOURCE_STATE"' "$TMP/snap.json" >/dev/null ||
		fail "snapshot of a starting sandbox: $code $(cat "$TMP/snap.json")"
	still_creating
	wait "$CLI"
}

# Kill of a sandbox while it starts: it ends, with its state, processes and cgroups.
check_kill_while_starting() {
	start_create || return
	init=$(jq -r '.runtime.initPid' "$STATE/$NEW/record.json")
	run timeout 30 "$ALLOX_CLI" sandbox kill "$NEW"
	expect_rc 0
	wait "$CLI"
	[ ! -e "$STATE/$NEW" ] || fail "state left: $(ls "$STATE/$NEW")"
	wait_until 5 gone "$init" || fail "its agent (pid $init) still runs"
	code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 --unix-socket "$SOCK" "http://x/v1/sandboxes/$NEW")
	[ "$code" = 404 ] || fail "the killed sandbox answers $code"
	expect_no_cgroups_left
}

LATE_CHECKS="start_holds_no_lock snapshot_of_pending kill_while_starting"

# ---------- run ----------

run allox sandbox create -o json
[ "$rc" -eq 0 ] || { cat "$TMP/err" >&2; echo "cannot create a sandbox" >&2; exit 1; }
SB=$(jq -r .id "$TMP/out")
run allox sandbox create -o json
[ "$rc" -eq 0 ] || { cat "$TMP/err" >&2; echo "cannot create a sandbox" >&2; exit 1; }
OTHER=$(jq -r .id "$TMP/out")
inside 'test -f /run/allox/entrypoint.json' || exit 1

# selected LIST: the names of LIST that ESCAPE_ONLY selects (all without it).
selected() {
	for s_name in $1; do
		case " ${ESCAPE_ONLY:-$s_name} " in *" $s_name "*) echo "$s_name" ;; esac
	done
}

for c in $(selected "$CHECKS"); do
	t "$c"
	"check_$c"
done

late=$(selected "$LATE_CHECKS")
[ -z "$late" ] || with_delayed_engine
for c in $late; do
	t "$c"
	"check_$c"
done

t "nothing is left behind"
expect_clean_stop
done_testing
