#!/bin/sh
# The sandbox lifecycle against a real local engine (bubblewrap) in a private ALLOX_HOME.
. "${TESTS_DIR:-tests}/cli/lib.sh"

export ALLOX_ENGINE_CLOCK_OFFSET_FILE="$TMP/clock"
echo 0 > "$ALLOX_ENGINE_CLOCK_OFFSET_FILE"
. "${TESTS_DIR:-tests}/cli/engine_lib.sh"

t "create starts the engine and waits for the runtime"
run allox sandbox create -o json
expect_rc 0
ID=$(jq -r .id "$TMP/out")
jq -e '.image == "host" and (.aio_url | test("^http://127\\.0\\.0\\.1:[0-9]+$")) and (.aio_ready_seconds | type == "number") and .entrypoint == "tail -f /dev/null"' "$TMP/out" >/dev/null || fail "create output"
jq -e 'keys_unsorted == ["id","image","aio_url","entrypoint","aio_ready_seconds"]' "$TMP/out" >/dev/null || fail "key order"
[ -S "$ALLOX_HOME/run/engine.sock" ] || fail "no socket"
[ "$(stat -c %a "$ALLOX_HOME/run")" = 700 ] || fail "run dir mode"
[ "$(stat -c %a "$ALLOX_HOME/run/engine.sock")" = 600 ] || fail "socket mode"

t "create made it the current session"
run allox session current -o json
jq -e --arg id "$ID" '.sandbox_id == $id and (.aio_url | startswith("http://127.0.0.1:"))' "$TMP/out" >/dev/null || fail "session"

t "list, get, endpoint"
run allox sandbox list -o json
jq -e --arg id "$ID" 'map(select(.id == $id and .state == "Running" and .image == "host")) | length == 1' "$TMP/out" >/dev/null || fail "list"
run allox sandbox list -o raw
grep -q "^$ID	Running	host	" "$TMP/out" || fail "raw list"
run allox sandbox get -o json
expect_out "{
  \"id\": \"$ID\",
  \"state\": \"Running\",
  \"image\": \"host\",
  \"cpu\": \"1\",
  \"memory\": \"2Gi\",
  \"pids\": \"1024\",
  \"disk\": \"10Gi\",
  \"network\": \"isolated\"
}"
run allox sandbox endpoint "$ID" -o json
jq -e --arg id "$ID" '.sandbox_id == $id' "$TMP/out" >/dev/null || fail "endpoint"

t "the agent answers only with the endpoint's token"
sock="$ALLOX_HOME/run/engine.sock"
curl -sf --unix-socket "$sock" "http://x/v1/sandboxes/$ID/endpoints/44772" > "$TMP/ep.json" || fail "endpoint call"
ep=$(jq -r .endpoint "$TMP/ep.json")
tok=$(jq -r '.headers["X-EXECD-ACCESS-TOKEN"]' "$TMP/ep.json")
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://$ep/ping")" = 401 ] || fail "no token accepted"
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "X-EXECD-ACCESS-TOKEN: $tok" "http://$ep/ping")" = 200 ] || fail "token refused"
curl -sf -H "X-EXECD-ACCESS-TOKEN: $tok" "http://$ep/v1/shell/sessions" >/dev/null || fail "shell sessions"

t "renew moves the expiry"
run allox sandbox renew -t 2h -o json
expect_rc 0
exp=$(jq -r .expires_at "$TMP/out")
want=$(( $(date +%s) + 7200 ))
got=$(date -d "$exp" +%s)
[ $((got - want)) -le 5 ] && [ $((want - got)) -le 5 ] || fail "expires_at $exp"
run allox sandbox renew -t 1h
expect_rc 1
expect_err_has "is not after the current expiry"
run allox sandbox renew
expect_rc 2
expect_err_has "missing option --timeout"

t "the sandbox's init and its children join every cgroup of the sandbox"
# The setup process moves itself through v1 "tasks" (not cgroup.procs): check
# that the whole sandbox really landed there, children included.
init=$(jq -r .runtime.initPid "$STATE/$ID/record.json")
for pid in "$init" $(cat "/proc/$init/task/$init/children" 2>/dev/null); do
	for c in freezer memory pids cpu; do
		[ -d "/sys/fs/cgroup/$c/allox/$ID" ] || continue
		grep -q ":$c:/allox/$ID\$" "/proc/$pid/cgroup" || fail "pid $pid not in the $c cgroup: $(cat /proc/$pid/cgroup)"
	done
done

t "pause freezes the sandbox, resume thaws it"
run allox sandbox pause -o json
expect_rc 0
jq -e '.status == "paused"' "$TMP/out" >/dev/null || fail "pause status"
[ "$(curl -s -m 1 -o /dev/null -w '%{http_code}' -H "X-EXECD-ACCESS-TOKEN: $tok" "http://$ep/ping")" = 200 ] && fail "agent answers while paused"
run allox sandbox pause
expect_rc 1
expect_err_has "SANDBOX::NOT_RUNNING"
run allox sandbox resume -o json
expect_rc 0
jq -e '.status == "running"' "$TMP/out" >/dev/null || fail "resume status"
[ "$(curl -s -m 2 -o /dev/null -w '%{http_code}' -H "X-EXECD-ACCESS-TOKEN: $tok" "http://$ep/ping")" = 200 ] || fail "agent silent after resume"

t "the engine keeps one empty cgroup frozen while it runs (the kernel's freezer fast path)"
if [ -d /sys/fs/cgroup/freezer ]; then
	h=$(hold_of "$(engine_pid)")
	[ "$(cat "$h/freezer.state" 2>/dev/null)" = FROZEN ] || fail "no frozen hold at $h"
	[ -z "$(cat "$h/tasks" 2>/dev/null)" ] || fail "tasks in the hold: $(cat "$h/tasks")"
else
	echo "# skipped: no cgroup v1 freezer" >&2
fi

t "engine kill -9: sandboxes keep running and are re-adopted"
old=$(engine_pid)
kill -9 "$old"
# Until it is gone, its socket accepts connections and resets them.
wait_until 10 gone "$old" || fail "engine survived kill -9"
init=$(jq -r .runtime.initPid "$STATE/$ID/record.json")
alive "$init" || fail "sandbox died with the engine"
run allox sandbox get -o json
expect_rc 0
jq -e '.state == "Running"' "$TMP/out" >/dev/null || fail "not re-adopted"
[ "$(engine_pid)" != "$old" ] || fail "engine not restarted"
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "X-EXECD-ACCESS-TOKEN: $tok" "http://$ep/ping")" = 200 ] || fail "agent lost"
if [ -d /sys/fs/cgroup/freezer ]; then
	[ ! -e "$(hold_of "$old")" ] || fail "the killed engine's hold was not removed by its successor"
	[ "$(cat "$(hold_of "$(engine_pid)")/freezer.state" 2>/dev/null)" = FROZEN ] || fail "no hold for the new engine"
fi

t "kill deletes the sandbox, clears the session and leaves nothing behind"
run allox sandbox kill -o json
expect_rc 0
expect_out "{
  \"id\": \"$ID\",
  \"status\": \"killed\"
}"
run allox session current
expect_rc 1
[ ! -e "$STATE/$ID" ] || fail "state dir left"
alive "$init" && fail "init still alive"
grep -q "$ID" /proc/self/mountinfo && fail "mount left"
ls /sys/fs/cgroup/*/allox/ 2>/dev/null | grep -q "$ID" && fail "cgroup left"
run allox sandbox get "$ID"
expect_rc 1
expect_err_has "Sandbox error [SANDBOX::NOT_FOUND]"

t "a sandbox expires"
run allox sandbox create --timeout 60s --skip-health-check -o json
expect_rc 0
EXP=$(jq -r .id "$TMP/out")
echo 120 > "$ALLOX_ENGINE_CLOCK_OFFSET_FILE"
wait_until 5 sh -c '! "$ALLOX_CLI" sandbox get '"$EXP"' >/dev/null 2>&1' || fail "not expired"
[ ! -e "$STATE/$EXP" ] || fail "expired state left"
expect_no_cgroups_left
echo 0 > "$ALLOX_ENGINE_CLOCK_OFFSET_FILE"

t "isolation: host files, other sandboxes, the engine's state"
echo original > "$TMP/hostfile"
cat > "$TMP/probe.sh" <<PROBE
echo changed > /etc/allox-probe 2>/dev/null
echo mine > /home/gem/secret
ls -a /home /root /tmp /run > /home/gem/ls.txt 2>&1
test -e "$ALLOX_HOME" && echo visible > /home/gem/home-visible
test -e "$TMP" && echo visible > /home/gem/tmp-visible
hostname > /home/gem/hostname
ls /proc | grep -c '^[0-9]' > /home/gem/nproc
sleep 1000
PROBE
run allox sandbox create --skip-health-check --entrypoint /bin/sh --entrypoint -c --entrypoint "$(cat "$TMP/probe.sh")" -o json
A=$(jq -r .id "$TMP/out")
run allox sandbox create --skip-health-check --entrypoint /bin/sh --entrypoint -c --entrypoint 'ls -a /home/gem > /home/gem/others.txt; sleep 1000' -o json
B=$(jq -r .id "$TMP/out")
wait_until 5 test -s "$STATE/$A/writable/layer/top/home/gem/nproc" || fail "probe did not run"
wait_until 5 test -s "$STATE/$B/writable/layer/top/home/gem/others.txt" || fail "probe B did not run"
[ ! -e /etc/allox-probe ] || { rm -f /etc/allox-probe; fail "host /etc changed"; }
grep -q secret "$STATE/$B/writable/layer/top/home/gem/others.txt" && fail "B sees A's files"
[ ! -e "$STATE/$A/writable/layer/top/home/gem/home-visible" ] || fail "ALLOX_HOME visible inside"
[ ! -e "$STATE/$A/writable/layer/top/home/gem/tmp-visible" ] || fail "host /tmp visible inside"
[ "$(cat "$STATE/$A/writable/layer/top/home/gem/hostname")" = "$(printf %.12s "$A")" ] || fail "hostname"
[ "$(cat "$STATE/$A/writable/layer/top/home/gem/nproc")" -le 4 ] || fail "sees host processes"
[ -e "$STATE/$A/writable/layer/etc/allox-probe" ] || fail "write to /etc did not land in the sandbox layer"
allox sandbox kill "$A" >/dev/null 2>&1
allox sandbox kill "$B" >/dev/null 2>&1

t "the entrypoint's exit shows in the status"
run allox sandbox create --skip-health-check --entrypoint /bin/sh --entrypoint -c --entrypoint 'exit 3' -o json
C=$(jq -r .id "$TMP/out")
wait_until 5 sh -c "curl -sf --unix-socket '$sock' http://x/v1/sandboxes/$C | jq -e '.status.reason == \"ENTRYPOINT_EXITED\" and (.status.message | contains(\"code 3\"))' >/dev/null" || fail "exit not visible"
allox sandbox kill "$C" >/dev/null 2>&1

t "bad input"
run allox sandbox create --image ubuntu:22.04 --skip-health-check
expect_rc 1
expect_err_has "Supported images: \"host\""
run allox sandbox create --timeout 30s
expect_rc 2
expect_err_has "at least 60s"
run allox sandbox create --timeout soon
expect_rc 2
run allox sandbox get no-such-id
expect_rc 1
expect_err_has "SANDBOX::NOT_FOUND"

t "a sandbox that never becomes ready is deleted"
run allox config set defaults.aio_health_path /no/such/path
run allox sandbox create --ready-timeout 1s -o json
expect_rc 1
jq -e '.error.code == "NOT_READY"' "$TMP/err" >/dev/null || fail "json error"
rm -f "$ALLOX_HOME/config.toml"
run allox sandbox list -o json
jq -e 'map(select(.state == "Running")) | length == 0' "$TMP/out" >/dev/null || fail "unready sandbox left running"
expect_no_cgroups_left

t "two concurrent invocations start one engine"
stop_engine
rm -f "$ALLOX_HOME/run/engine.pid"
"$ALLOX_CLI" sandbox list >/dev/null 2>"$TMP/e1" &
"$ALLOX_CLI" sandbox list >/dev/null 2>"$TMP/e2" &
wait
[ ! -s "$TMP/e1" ] && [ ! -s "$TMP/e2" ] || fail "errors: $(cat "$TMP/e1" "$TMP/e2")"
n=$(pgrep -f "allox-engine --home $ALLOX_HOME\$" | wc -l)
[ "$n" -eq 1 ] || fail "$n engines running"

t "an engine that stops removes its freezer hold"
pid=$(engine_pid)
kill -TERM "$pid"
wait_until 30 gone "$pid" || fail "the engine did not stop"
[ ! -e "$(hold_of "$pid")" ] || fail "hold left: $(hold_of "$pid")"
run allox sandbox list
expect_rc 0

t "no cgroup is left of a sandbox of this test: ended ones, then all once the engine stops"
expect_clean_stop

done_testing
