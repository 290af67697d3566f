#!/bin/sh
# allox-agent's Jupyter routes, straight at the agent: /v1/jupyter/execute,
# /v1/jupyter/info and the sessions routes, with real ipykernels: request
# checks, sessions, queueing, deletion, kernelspec discovery, failed starts
# and shutdown. Needs ALLOX_AGENT and ALLOX_LISTEN_FD, curl, jq and
# Debian's python3-ipykernel.
set -u

: "${ALLOX_AGENT:?ALLOX_AGENT must point at the allox-agent binary}"
: "${ALLOX_LISTEN_FD:?ALLOX_LISTEN_FD must point at the listen_fd test helper}"
. "${TESTS_DIR:-tests}/cli/agent_lib.sh"
PID=""
cleanup() {
	[ -n "$PID" ] && kill -KILL "$PID" 2>/dev/null
	# Kernels of a killed agent: their process groups, recorded by the tests.
	for f in "$TMP"/pids/*; do
		[ -f "$f" ] && kill -KILL -- "-$(cat "$f")" 2>/dev/null
	done
}
agent_test_init allox-agent-jupyter
mkdir -p "$TMP/pids" "$TMP/wd" "$TMP/tmp"
TOKEN=t0k3n-jupyter-0123456789abcdef
SLOW=${ALLOX_TEST_SLOW:-1}
POLL_SCALE=$SLOW
# Kernel files go to the agent's TMPDIR: a directory this test removes.
export TMPDIR="$TMP/tmp"
# A kernelspec of our own, found through JUPYTER_PATH before the system's.
export JUPYTER_PATH="$TMP/jupyter"
export ALLOX_TEST_VALUE=substituted

fail_context() {
	last_body "last body (first 2000 bytes)" 2000
	echo "--- agent stderr (last 20 lines)" >&2
	tail -n 20 "$TMP/agent.err" >&2
}

# post PATH JSON: POST a JSON body; sets $code, body in $BODY (default
# $TMP/body: calls in the background name their own).
post() {
	code=$(printf '%s' "$2" | curl -s -o "${BODY:-$TMP/body}" -w '%{http_code}' --max-time $((120 * SLOW)) \
		-H "X-EXECD-ACCESS-TOKEN: $TOKEN" -H 'Content-Type: application/json' --data-binary @- \
		"http://127.0.0.1:$PORT$1")
}

# call METHOD PATH: a request without a body; sets $code, body in $TMP/body.
call() {
	code=$(curl -s -o "$TMP/body" -w '%{http_code}' --max-time $((60 * SLOW)) -X "$1" \
		-H "X-EXECD-ACCESS-TOKEN: $TOKEN" "http://127.0.0.1:$PORT$2")
}

# execute CODE [JQ-ASSIGNMENTS]: POST /v1/jupyter/execute with {code} plus fields.
execute() {
	post /v1/jupyter/execute "$(jq -nc --arg c "$1" "{code: \$c} ${2:+| $2}")"
}

# The stdout text of the last execution.
stdout_text() {
	jq -r '[.data.outputs[] | select(.name == "stdout") | .text] | join("")' "$TMP/body"
}

mkdir -p "$JUPYTER_PATH/kernels/mine" "$JUPYTER_PATH/kernels/broken" "$JUPYTER_PATH/kernels/bad name"
cat > "$JUPYTER_PATH/kernels/mine/kernel.json" <<'EOF'
{"argv": ["/usr/bin/python3", "{resource_dir}/launch.py", "{connection_file}"],
 "display_name": "Mine", "language": "python", "interrupt_mode": "message",
 "env": {"MINE": "${ALLOX_TEST_VALUE}-${NOT_SET_ANYWHERE}"}}
EOF
cat > "$JUPYTER_PATH/kernels/mine/launch.py" <<'EOF'
import os, runpy, sys
os.environ["LAUNCHED_BY"] = sys.argv[0]
sys.argv = ["ipykernel_launcher", "-f", sys.argv[1]]
runpy.run_module("ipykernel_launcher", run_name="__main__")
EOF
cat > "$JUPYTER_PATH/kernels/broken/kernel.json" <<'EOF'
{"argv": ["/usr/bin/python3", "-c", "import sys; print('kernel exploded', file=sys.stderr); sys.exit(4)",
 "{connection_file}"], "display_name": "Broken", "language": "python"}
EOF
echo '{"argv": ["true"]}' > "$JUPYTER_PATH/kernels/bad name/kernel.json"

launch_agent "${ALLOX_AGENT_WRAP:-}" "$TMP" "$TMP/agent.err" sb-jupyter
agent_port 50 "$TMP" || { echo "agent did not start" >&2; cat "$TMP/agent.err" >&2; exit 1; }
agent_ping 100 --max-time 2 || { echo "agent not serving" >&2; exit 1; }

t "info: kernels found by their kernelspecs, invalid names skipped"
call GET /v1/jupyter/info
expect_code 200
jq_body '.success == true and .data.default_kernel == "python3" and .data.active_sessions == 0'
jq_body '.data.available_kernels == ["broken", "mine", "python3"]'
jq_body '.data | keys_unsorted == ["default_kernel", "available_kernels", "active_sessions",
	"session_timeout_seconds", "max_sessions", "description", "kernel_detection"]'

t "execute: the result shape and the default session"
execute 'import os; print(os.getpid()); os.getcwd()'
expect_code 200
jq_body '.success == true and .message == "Code executed successfully" and .hint == null'
jq_body '.data | keys_unsorted == ["kernel_name", "session_id", "status", "execution_count", "outputs", "code", "msg_id"]'
jq_body '.data.status == "ok" and .data.session_id == "default" and .data.kernel_name == "python3"'
jq_body --arg h "$HOME" '.data.outputs[1].data["text/plain"] == "\u0027\($h)\u0027"'
stdout_text > "$TMP/pids/default"

t "execute: the kernel is in a process group of its own, started with the agent as parent"
kpid=$(cat "$TMP/pids/default")
[ "$(ps -o pgid= -p "$kpid" | tr -d ' ')" = "$kpid" ] || fail "kernel $kpid leads no group"
[ "$(ps -o ppid= -p "$kpid" | tr -d ' ')" = "$PID" ] || fail "kernel $kpid is not the agent's child"

t "execute: request checks (FastAPI-style 422)"
post /v1/jupyter/execute '{}'
expect_code 422
jq_body '.success == false and .detail[0].loc == ["body", "code"] and .detail[0].type == "missing"'
execute 'print(1)' '.timeout = 0'
expect_code 422
jq_body '.detail[0].type == "greater_than_equal"'
execute 'print(1)' '.timeout = 301'
expect_code 422
execute 'print(1)' '.timeout = "soon"'
expect_code 422
post /v1/jupyter/execute 'not json'
expect_code 422
execute 'print(1)' '.session_id = "a/b"'
expect_code 400
execute 'print(1)' '.kernel_name = "../python3" | .session_id = "x"'
expect_code 400
execute 'print(1)' '.kernel_name = "nope" | .session_id = "x"'
expect_code 404
jq_body '.message == "No such kernel: nope"'
execute 'print(1)' '.cwd = "/nonexistent" | .session_id = "x"'
expect_code 400
# A session whose kernel never started is not kept.
call GET /v1/jupyter/sessions
jq_body '.data.sessions | keys == ["default"]'

t "execute: timeout null is the default; cwd starts a new session's kernel there"
execute 'import os; print(os.getcwd())' '.timeout = null | .session_id = "in-wd" | .cwd = "'"$TMP/wd"'"'
expect_code 200
[ "$(stdout_text)" = "$TMP/wd" ] || fail "cwd: $(stdout_text)"

t "a kernelspec's argv ({resource_dir}), env (\${VAR}) and interrupt_mode message"
execute 'import os; print(os.environ["MINE"]); print(os.environ["LAUNCHED_BY"])' '.kernel_name = "MINE" | .session_id = "m"'
expect_code 200
jq_body '.data.kernel_name == "mine"'
[ "$(stdout_text)" = "substituted-\${NOT_SET_ANYWHERE}
$JUPYTER_PATH/kernels/mine/launch.py" ] || fail "env: $(stdout_text)"
execute 'while True: pass' '.session_id = "m" | .timeout = 1'
jq_body '.data.status == "timeout"'
execute 'print("still here")' '.session_id = "m"'
[ "$(stdout_text)" = "still here" ] || fail "after the interrupt: $(stdout_text)"

t "a kernel that fails to start: 500 with its last words"
execute 'print(1)' '.kernel_name = "broken" | .session_id = "b"'
expect_code 500
jq_body '.message | test("kernel broken failed to start \\(exit status 4\\): kernel exploded")'
call GET /v1/jupyter/sessions
jq_body '.data.sessions | has("b") | not'

t "sessions: create, list, duplicate, delete"
post /v1/jupyter/sessions/create '{"session_id": "made", "kernel_name": "python3"}'
expect_code 200
jq_body '.data == {"session_id": "made", "kernel_name": "python3", "message": "Session created"}'
post /v1/jupyter/sessions/create '{"session_id": "made"}'
jq_body '.data.message == "Session already exists"'
post /v1/jupyter/sessions/create '{}'
jq_body '.data.session_id | test("^[0-9a-f-]{36}$")'
auto=$(jq -r .data.session_id "$TMP/body")
call GET /v1/jupyter/sessions
expect_code 200
jq_body --arg a "$auto" '.data.sessions | has("made") and has($a) and has("default")'
jq_body '.data.sessions.made.kernel_name == "python3" and (.data.sessions.made.last_used | type == "number")'
jq_body '.data.sessions.made.age_seconds >= 0'
call DELETE "/v1/jupyter/sessions/$auto"
expect_code 200
call DELETE "/v1/jupyter/sessions/$auto"
expect_code 404
jq_body '.success == false'

t "calls on one session are queued in order, other sessions run meanwhile"
execute 'import time' '.session_id = "made"'
execute 'import time' '.session_id = "q2"'
BODY=$TMP/slow execute 'time.sleep(2); v = "first"' '.session_id = "made"' &
slow=$!
sleep 0.5
execute 'print(v)' '.session_id = "made"'
alive "$slow" && fail "the second call did not wait for the first"
jq_body '.data.outputs[0].text == "first\n"'
BODY=$TMP/slow execute 'time.sleep(3)' '.session_id = "made"' &
slow=$!
sleep 0.5
execute 'print("meanwhile")' '.session_id = "q2"'
[ "$(stdout_text)" = meanwhile ] || fail "other session"
alive "$slow" || fail "another session waited for this one"
wait "$slow"

t "deleting a session ends the call running in it"
execute 'import os; print(os.getpid())' '.session_id = "doomed"'
stdout_text > "$TMP/pids/doomed"
BODY=$TMP/doomed execute 'import time; time.sleep(60)' '.session_id = "doomed"' &
running=$!
sleep 1
call DELETE /v1/jupyter/sessions/doomed
expect_code 200
wait "$running"
jq -e '.data.status == "error" and .data.outputs[-1].ename == "DeadKernelError"' "$TMP/doomed" >/dev/null ||
	fail "running call: $(cat "$TMP/doomed")"
until_true 20 dead "$(cat "$TMP/pids/doomed")" || fail "kernel still running"

t "DELETE /v1/jupyter/sessions ends them all"
call DELETE /v1/jupyter/sessions
expect_code 200
jq_body '.data.deleted == 5'
call GET /v1/jupyter/sessions
jq_body '.data.sessions == {}'
until_true 20 dead "$(cat "$TMP/pids/default")" || fail "default kernel still running"

t "SIGTERM: the agent stops its kernels and removes their files"
execute 'import os; print(os.getpid())'
stdout_text > "$TMP/pids/last"
kill -TERM "$PID"
until_true 50 dead "$PID" || fail "agent did not stop"
wait "$PID" 2>/dev/null
PID=""
until_true 20 dead "$(cat "$TMP/pids/last")" || fail "kernel outlived the agent"
[ -z "$(ls -A "$TMP/tmp")" ] || fail "left behind: $(ls -A "$TMP/tmp")"

summary
