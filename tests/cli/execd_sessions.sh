#!/bin/sh
# allox-agent's newer execd routes outside a sandbox, as a client sees
# them: bash sessions (state kept between runs, per-run cwd, exit codes,
# timeouts, deletion), POST /files/replace, GET /metrics and
# /metrics/watch, and the ErrorResponse shape of refusals. Needs
# ALLOX_AGENT, ALLOX_LISTEN_FD, curl, jq and bash.
set -u

: "${ALLOX_AGENT:?ALLOX_AGENT must point at the allox-agent binary}"
: "${ALLOX_LISTEN_FD:?ALLOX_LISTEN_FD must point at the listen_fd test helper}"
. "${TESTS_DIR:-tests}/cli/agent_lib.sh"
PID=""
MARK="4343$$"
cleanup() {
	if [ -n "$PID" ]; then
		kill -TERM "$PID" 2>/dev/null
		until_true 100 dead "$PID" || kill -KILL "$PID" 2>/dev/null
		wait "$PID" 2>/dev/null
	fi
}
agent_test_init allox-execd-sessions
TOKEN=t0k3n-sessions-0123456789
T_HDR="X-EXECD-ACCESS-TOKEN: $TOKEN"

fail_context() {
	last_body "last body" 2000
}

req() {
	m=$1
	p=$2
	shift 2
	code=$(curl -s -o "$TMP/body" -D "$TMP/headers" -w '%{http_code}' --max-time 30 \
		-H "$T_HDR" -X "$m" "$@" "$URL$p")
}

post() {
	req POST "$1" -N -H 'Content-Type: application/json' --data-binary "$2"
}

ev() {
	jq -e -s "$1" "$TMP/body" >/dev/null 2>&1 || fail "events fail: $1"
}

# No process's command line holds WORD (the glob is expanded before grep
# runs, so grep does not find itself).
gone() {
	! grep -qs -F "$1" /proc/[0-9]*/cmdline
}

stdout_of() {
	jq -r 'select(.type == "stdout") | .text' "$TMP/body"
}

launch_agent "" "$TMP" "$TMP/agent.err" sb-sessions
agent_port 30 "$TMP" || { echo "FAIL: the agent did not start" >&2; cat "$TMP/agent.err" >&2; exit 1; }
URL="http://127.0.0.1:$PORT"
agent_ping 30 || { echo "FAIL: no /ping" >&2; exit 1; }
mkdir -p "$TMP/a" "$TMP/b"

t "execd refusals are ErrorResponse objects; AIO ones keep the AIO envelope"
req GET /nope
expect_code 404
jq_body '. == {"code":"NOT_FOUND","message":"Not found: /nope"}'
req PUT /session
expect_code 405
jq_body '.code == "METHOD_NOT_ALLOWED" and (.message | type) == "string"'
req GET /v1/nope
expect_code 404
jq_body '.success == false'

t "POST /session answers a session id; cwd and env persist between runs"
post /session "{\"cwd\":\"$TMP/a\"}"
expect_code 200
S=$(jq -r .session_id "$TMP/body")
[ -n "$S" ] && [ "$S" != null ] || fail "no session_id"
post "/session/$S/run" '{"command":"pwd"}'
expect_code 200
ev ".[0].type == \"init\" and .[0].text == \"$S\" and .[-1].type == \"execution_complete\""
[ "$(stdout_of)" = "$TMP/a" ] || fail "pwd $(stdout_of)"
post "/session/$S/run" "{\"command\":\"cd $TMP/b; export E=exported; V=plain; f() { echo fn; }\"}"
ev '.[-1].type == "execution_complete"'
post "/session/$S/run" '{"command":"pwd; echo $E $V; f"}'
[ "$(stdout_of | tr '\n' ' ')" = "$TMP/b exported plain fn " ] || fail "state $(stdout_of | tr '\n' ' ')"

t "a run's cwd lasts for that run"
post "/session/$S/run" "{\"command\":\"pwd\",\"cwd\":\"$TMP/a\"}"
[ "$(stdout_of)" = "$TMP/a" ] || fail "override $(stdout_of)"
post "/session/$S/run" '{"command":"pwd"}'
[ "$(stdout_of)" = "$TMP/b" ] || fail "after $(stdout_of)"

t "stderr is separate; a failing command is an error event with its exit status"
post "/session/$S/run" '{"command":"echo out; sh -c \"echo err >&2; exit 7\""}'
ev '[.[] | select(.type == "stderr") | .text] == ["err"] and [.[] | select(.type == "stdout") | .text] == ["out"]'
ev '.[-1].type == "error" and .[-1].error.ename == "CommandExecError" and .[-1].error.evalue == "7"'
ev '[.[] | select(.type == "execution_complete" or .type == "error")] | length == 1'

t "commands do not read the session's input"
post "/session/$S/run" '{"command":"cat; echo after"}'
[ "$(stdout_of)" = after ] || fail "cat read something: $(stdout_of)"

t "a timeout kills the run, not the session"
start=$(now_ms)
post "/session/$S/run" "{\"command\":\"sleep $MARK\",\"timeout\":500}"
[ $(($(now_ms) - start)) -lt 5000 ] || fail "the timeout did not stop it"
ev '.[-1].type == "error" and .[-1].error.evalue == "137"'
post "/session/$S/run" '{"command":"echo $E"}'
[ "$(stdout_of)" = exported ] || fail "session state lost: $(stdout_of)"

t "a client that hangs up: its run is killed, the session goes on"
curl -s -N --max-time 1 -H "$T_HDR" --data-binary "{\"command\":\"sleep $MARK\"}" "$URL/session/$S/run" >/dev/null
until_true 50 gone "sleep $MARK" || fail "the run still runs"
post "/session/$S/run" '{"command":"echo $E"}'
[ "$(stdout_of)" = exported ] || fail "after hang-up: $(stdout_of)"

t "bad runs: 400 ErrorResponse"
post "/session/$S/run" '{"cwd":"/"}'
expect_code 400
jq_body '.code == "INVALID_REQUEST_BODY"'
post "/session/$S/run" "{\"command\":\"pwd\",\"cwd\":\"$TMP/none\"}"
expect_code 400
jq_body '.code == "INVALID_REQUEST_BODY" and (.message | test("No such file"))'
post /session/unknown-id/run '{"command":"pwd"}'
expect_code 400
jq_body '.code == "CONTEXT_NOT_FOUND"'
post /session "{\"cwd\":\"$TMP/none\"}"
expect_code 400
req POST /session
expect_code 200
jq_body '(.session_id | type) == "string"'

t "exit in a run ends the session"
post /session '{}'
S2=$(jq -r .session_id "$TMP/body")
post "/session/$S2/run" '{"command":"exit 3"}'
ev '.[-1].type == "error" and .[-1].error.evalue == "3"'
post "/session/$S2/run" '{"command":"pwd"}'
expect_code 400
jq_body '.code == "CONTEXT_NOT_FOUND"'

t "DELETE /session/{id}: 200, then 404 CONTEXT_NOT_FOUND"
req DELETE "/session/$S"
expect_code 200
req DELETE "/session/$S"
expect_code 404
jq_body '.code == "CONTEXT_NOT_FOUND"'
post "/session/$S/run" '{"command":"pwd"}'
expect_code 400

t "POST /files/replace: every occurrence, counts with verbose, mode kept"
printf 'foo bar foo\nfoo' >"$TMP/r1"
chmod 640 "$TMP/r1"
printf 'hello' >"$TMP/r2"
post '/files/replace?verbose=true' "{\"$TMP/r1\":{\"old\":\"foo\",\"new\":\"qux\"},\"$TMP/r2\":{\"old\":\"nothere\",\"new\":\"x\"}}"
expect_code 200
jq_body ". == {\"$TMP/r1\":{\"replacedCount\":3},\"$TMP/r2\":{\"replacedCount\":0}}"
[ "$(cat "$TMP/r1")" = "qux bar qux
qux" ] || fail "content $(cat "$TMP/r1")"
[ "$(stat -c %a "$TMP/r1")" = 640 ] || fail "mode $(stat -c %a "$TMP/r1")"
[ "$(cat "$TMP/r2")" = hello ] || fail "r2 changed"
[ -z "$(find "$TMP" -maxdepth 1 -name '.*replace*')" ] || fail "a temporary file was left"
post /files/replace "{\"$TMP/r2\":{\"old\":\"l\",\"new\":\"LL\"}}"
expect_code 200
[ ! -s "$TMP/body" ] || fail "body without verbose"
[ "$(cat "$TMP/r2")" = heLLLLo ] || fail "r2 $(cat "$TMP/r2")"

t "a match across read boundaries is found"
head -c 65534 /dev/zero | tr '\0' a >"$TMP/big"
printf 'XYZ' >>"$TMP/big"
post '/files/replace?verbose=true' "{\"$TMP/big\":{\"old\":\"aXYZ\",\"new\":\"-\"}}"
jq_body ".[\"$TMP/big\"].replacedCount == 1"
[ "$(tail -c 2 "$TMP/big")" = a- ] || fail "tail $(tail -c 2 "$TMP/big")"

t "replace refusals: empty old, a missing file, a directory; nothing changed"
printf 'keep' >"$TMP/r3"
post /files/replace "{\"$TMP/r3\":{\"old\":\"keep\",\"new\":\"x\"},\"$TMP/r2\":{\"old\":\"\",\"new\":\"x\"}}"
expect_code 400
jq_body '.code == "INVALID_REQUEST_BODY"'
[ "$(cat "$TMP/r3")" = keep ] || fail "r3 changed by a refused request"
post /files/replace "{\"$TMP/none\":{\"old\":\"a\",\"new\":\"b\"}}"
expect_code 400
jq_body '.code == "FILE_NOT_FOUND"'
post /files/replace "{\"$TMP/a\":{\"old\":\"a\",\"new\":\"b\"}}"
expect_code 400
jq_body '.code == "INVALID_FILE"'
post /files/replace 'not json'
expect_code 400

t "GET /metrics: the spec's fields, plausible values"
req GET /metrics
expect_code 200
jq_body '(.cpu_count > 0) and (.cpu_used_pct >= 0 and .cpu_used_pct <= 100) and (.mem_total_mib > 0)
	and (.mem_used_mib >= 0 and .mem_used_mib <= .mem_total_mib) and (.disk_total_mib > 0)'
jq_body "(.timestamp - $(now_ms) | fabs) < 60000"

t "CPU use shows while a command burns CPU"
curl -s -o /dev/null --max-time 10 -H "$T_HDR" --data-binary '{"command":"timeout 3 sh -c \"while :; do :; done\"","background":true}' "$URL/command"
sleep 0.5
req GET /metrics
jq_body '.cpu_used_pct > 10'

t "GET /metrics/watch: SSE events, one a second"
curl -s -N --max-time 3 -H "$T_HDR" -D "$TMP/headers" -o "$TMP/watch" "$URL/metrics/watch"
grep -qi '^content-type: text/event-stream' "$TMP/headers" || fail "Content-Type"
n=$(grep -c '^data: {' "$TMP/watch")
[ "$n" -ge 2 ] && [ "$n" -le 4 ] || fail "$n events in 3 s"
sed -n 's/^data: //p' "$TMP/watch" | jq -e -s 'all(.[]; .cpu_count > 0 and (.timestamp | type) == "number")' >/dev/null ||
	fail "events are not Metrics"

t "no run outlived its test"
until_true 30 gone "sleep $MARK" || fail "a run with the test marker still runs"

summary
