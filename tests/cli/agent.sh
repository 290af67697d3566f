#!/bin/sh
# allox-agent outside a sandbox: token check, routes, entrypoint supervision,
# reaping and shutdown. Needs ALLOX_AGENT (the agent) and ALLOX_LISTEN_FD
# (tests/helpers/listen_fd), plus curl and jq.
set -u

: "${ALLOX_AGENT:?ALLOX_AGENT must point at the allox-agent binary}"
: "${ALLOX_LISTEN_FD:?ALLOX_LISTEN_FD must point at the listen_fd test helper}"
. "${TESTS_DIR:-tests}/cli/agent_lib.sh"
AGENTS=""
cleanup() {
	for p in $AGENTS; do
		kill -KILL "$p" 2>/dev/null
	done
}
agent_test_init allox-agent-test
unset WORKSPACE
TOKEN=t0k3n-0123456789abcdef
n=0

fail_context() {
	if [ -n "${DIR:-}" ] && [ -f "$DIR/err" ]; then
		echo "--- agent stderr" >&2
		cat "$DIR/err" >&2
	fi
	last_body "last body"
}

# start_agent [-- ENTRYPOINT...]: start an agent in $DIR; sets PID and PORT.
# (With $WRAP, PID is the wrapper's.)
start_agent() {
	n=$((n + 1))
	DIR="$TMP/a$n"
	mkdir -p "$DIR"
	# $WRAP may put a command such as unshare in front.
	launch_agent "${WRAP:-}" "$DIR" "$DIR/err" "sb-$n" "$@"
	AGENTS="$AGENTS $PID"
	agent_port 20 "$DIR" || { fail "no port file"; return 1; }
	until_true 20 test -s "$DIR/run/entrypoint.json" || { fail "no status file"; return 1; }
}

# stop_agent [SIGNAL]: signal the agent, wait (bounded) and set $rc.
stop_agent() {
	kill -"${1:-TERM}" "$PID" 2>/dev/null
	if until_true "${2:-30}" dead "$PID"; then
		wait "$PID"
		rc=$?
	else
		rc=timeout
		kill -KILL "$PID" 2>/dev/null
		wait "$PID" 2>/dev/null
	fi
}

# req METHOD PATH [TOKEN|-]: HTTP request; sets $code, body in $TMP/body, headers in $TMP/headers.
req() {
	tok=${3-$TOKEN}
	set -- -s -o "$TMP/body" -D "$TMP/headers" -w '%{http_code}' --max-time 5 \
		-X "$1" "http://127.0.0.1:$PORT$2"
	if [ "$tok" != - ]; then
		set -- "$@" -H "X-EXECD-ACCESS-TOKEN: $tok"
	fi
	code=$(curl "$@")
}

expect_body() {
	printf '%s' "$1" | cmp -s - "$TMP/body" || fail "body differs from: $1"
}

status_is() {
	jq -e "$1" "$DIR/run/entrypoint.json" >/dev/null 2>&1
}

expect_status() {
	until_true 20 status_is "$1" || fail "status file fails: $1 ($(cat "$DIR/run/entrypoint.json"))"
}

# children: how many children the agent has (in state $want, if set: Z, S, ...).
# Shell builtins only, so one scan is quick even on a busy machine.
children() {
	count=0
	for f in /proc/[0-9]*/stat; do
		read -r line 2>/dev/null <"$f" || continue
		set -- ${line##*) }
		[ "${2:-}" = "$PID" ] || continue
		[ -z "${want:-}" ] || [ "$1" = "$want" ] || continue
		count=$((count + 1))
	done
	echo "$count"
}

at_least_children() {
	[ "$(children)" -ge "$1" ]
}

exactly_children() {
	[ "$(children)" -eq "$1" ]
}

no_zombies() {
	[ "$(want=Z children)" -eq 0 ]
}

entry_pid() {
	jq -r .pid "$DIR/run/entrypoint.json"
}

# ---------------------------------------------------------------------------

t "refuses to start without a token"
DIR="$TMP/notoken"
mkdir -p "$DIR"
"$ALLOX_LISTEN_FD" "$DIR/port" "$ALLOX_AGENT" --listen-fd 3 --sandbox-id x \
	--status-file "$DIR/run/entrypoint.json" -- sleep 30 2>"$DIR/err"
rc=$?
[ "$rc" -eq 2 ] || fail "exit status $rc, expected 2"
grep -q '^allox-agent: --token-fd is required' "$DIR/err" || fail "no error message"
[ ! -e "$DIR/run/entrypoint.json" ] || fail "entrypoint was started"

t "refuses an empty token"
DIR="$TMP/empty"
mkdir -p "$DIR"
"$ALLOX_LISTEN_FD" "$DIR/port" --token "" "$ALLOX_AGENT" --listen-fd 3 --token-fd 4 \
	--sandbox-id x --status-file "$DIR/s.json" 2>"$DIR/err"
rc=$?
[ "$rc" -eq 2 ] || fail "exit status $rc, expected 2"
grep -q 'empty token' "$DIR/err" || fail "no error message"

t "bad arguments exit 2"
"$ALLOX_AGENT" --token-fd 4 --sandbox-id x 2>"$TMP/err" 4</dev/null
rc=$?
[ "$rc" -eq 2 ] || fail "missing --listen-fd: exit status $rc"
"$ALLOX_AGENT" --listen-fd 0 --token-fd 4 --sandbox-id x 2>"$TMP/err" </dev/null 4</dev/null
rc=$?
[ "$rc" -eq 2 ] || fail "non-socket --listen-fd: exit status $rc"
grep -q -- '--listen-fd 0:' "$TMP/err" || fail "no message for a non-socket fd"
"$ALLOX_AGENT" --listen-fd x3 --token-fd 4 --sandbox-id x 2>"$TMP/err"
rc=$?
[ "$rc" -eq 2 ] || fail "bad fd number: exit status $rc"
"$ALLOX_AGENT" --bogus 2>"$TMP/err"
rc=$?
[ "$rc" -eq 2 ] || fail "unknown option: exit status $rc"
grep -q 'unknown option: --bogus' "$TMP/err" || fail "no message for an unknown option"

t "a status file that cannot be written is a runtime failure"
DIR="$TMP/badstatus"
mkdir -p "$DIR"
: >"$DIR/file"
"$ALLOX_LISTEN_FD" "$DIR/port" --token "$TOKEN" "$ALLOX_AGENT" --listen-fd 3 --token-fd 4 \
	--sandbox-id x --status-file "$DIR/file/entrypoint.json" -- sleep 30 2>"$DIR/err"
rc=$?
[ "$rc" -eq 1 ] || fail "exit status $rc, expected 1"
grep -q "^allox-agent: cannot create directory $DIR/file" "$DIR/err" || fail "no error message"

t "running entrypoint: status file"
FOO=bar ALLOX_AGENT_SECRET=hidden start_agent -- sh -c \
	'env >"$0/env"; readlink /proc/$$/fd/0 >"$0/stdin"; echo to-stdout; echo to-stderr >&2; exec sleep 30' \
	"$TMP/a$((n + 1))"
expect_status '.state == "running" and (.pid | type) == "number" and .argv[0] == "sh" and (.argv | length) == 4
	and (.startedAt | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$"))
	and (keys_unsorted == ["state","pid","argv","startedAt"])'
EP=$(entry_pid)
alive "$EP" || fail "entrypoint $EP not running"
[ "$(sed 's/.*) //' "/proc/$EP/stat" | cut -d' ' -f3)" = "$EP" ] || fail "entrypoint is not its own process group"

t "entrypoint environment and streams"
until_true 20 test -s "$DIR/stdin" || fail "entrypoint wrote nothing"
until_true 20 grep -qx sleep "/proc/$EP/comm" || fail "entrypoint did not exec sleep"
grep -qx 'FOO=bar' "$DIR/env" || fail "FOO not passed"
! grep -q '^ALLOX_AGENT_' "$DIR/env" || fail "agent-internal variable passed"
[ "$(cat "$DIR/stdin")" = /dev/null ] || fail "stdin is $(cat "$DIR/stdin")"
fds=$(ls "/proc/$EP/fd" | sort -n | tr '\n' ' ')
[ "$fds" = "0 1 2 " ] || fail "leaked fds: $fds"
until_true 20 grep -qx to-stdout "$DIR/err" || fail "entrypoint stdout not on agent stderr"
grep -qx to-stderr "$DIR/err" || fail "entrypoint stderr not on agent stderr"
grep -q '^allox-agent: serving on 127.0.0.1:' "$DIR/err" || fail "no serving log line"

t "401 without or with a wrong token"
for tok in - wrong "${TOKEN}x" "$(printf %s "$TOKEN" | cut -c2-)" ""; do
	req GET /ping "$tok"
	expect_code 401
	expect_body '{"error":"Unauthorized: missing or invalid X-EXECD-ACCESS-TOKEN"}'
done
req GET /nope -
expect_code 401
req POST /v1/sandbox wrong
expect_code 401

t "GET /ping"
req GET /ping
expect_code 200
[ ! -s "$TMP/body" ] || fail "body not empty"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -I -H "X-EXECD-ACCESS-TOKEN: $TOKEN" \
	"http://127.0.0.1:$PORT/ping")
expect_code 200

t "GET /v1/sandbox"
req GET /v1/sandbox
expect_code 200
grep -qi '^content-type: application/json' "$TMP/headers" || fail "content type"
jq_body 'keys_unsorted == ["success","message","data","hint","home_dir","workspace","version","detail"]'
jq_body '.success == true and (.message | type) == "string" and .hint == null'
jq_body '(.data | type) == "string" and (.data | test("Home directory: '"$HOME"'"))'
jq_body '.home_dir == "'"$HOME"'" and .workspace == "'"$HOME"'" and (.version | length) > 0'
jq_body '.detail | keys_unsorted == ["system","runtime","utils"]'
jq_body '.detail.system | keys_unsorted == ["os","os_version","arch","user","home_dir","workspace","timezone","occupied_ports"]'
jq_body '.detail.system | ([.os, .os_version, .arch, .user, .timezone] | all(type == "string" and length > 0))'
jq_body '.detail.system.home_dir == "'"$HOME"'"'
jq_body '.detail.system.occupied_ports | all(type == "string") and index("'"$PORT"'") != null'
jq_body '.detail.runtime | (.python | type) == "array" and (.nodejs | type) == "array"'
jq_body '[.detail.runtime[][]] | all(has("ver") and has("bin") and (.alias | type) == "array")'
jq_body '.detail.utils | all(has("category") and (.tools | all(has("name") and has("description"))))'
jq_body '[.detail.utils[].tools[].name] | index("sh") != null'

t "GET /v1/sandbox follows WORKSPACE"
# Reads the agent's own environment, so check it through a second agent.
SAVED_DIR=$DIR SAVED_PID=$PID SAVED_PORT=$PORT
WORKSPACE=/srv/ws start_agent
req GET /v1/sandbox
jq_body '.workspace == "/srv/ws" and .detail.system.workspace == "/srv/ws"'
status_is '. == {"state":"none"}' || fail "no entrypoint: $(cat "$DIR/run/entrypoint.json")"
stop_agent
[ "$rc" = 0 ] || fail "exit status $rc"
DIR=$SAVED_DIR PID=$SAVED_PID PORT=$SAVED_PORT

t "GET /v1/shell/sessions"
req GET /v1/shell/sessions
expect_code 200
expect_body '{"success":true,"message":"Operation successful","data":{"sessions":{}},"hint":null}'

t "404 and 405"
req GET /v1/nope
expect_code 404
expect_body '{"success":false,"message":"Not found: /v1/nope"}'
req POST /ping
expect_code 405
grep -qi '^allow: GET' "$TMP/headers" || fail "no Allow header"
# execd's paths answer in its ErrorResponse shape, the AIO paths in theirs.
expect_body '{"code":"METHOD_NOT_ALLOWED","message":"Method not allowed: POST /ping"}'
req GET /nope
expect_code 404
expect_body '{"code":"NOT_FOUND","message":"Not found: /nope"}'
req DELETE /v1/sandbox
expect_code 405
jq_body '.success == false'

t "keep-alive"
out=$(curl -sv --max-time 5 -H "X-EXECD-ACCESS-TOKEN: $TOKEN" "http://127.0.0.1:$PORT/ping" \
	"http://127.0.0.1:$PORT/v1/shell/sessions" 2>&1)
printf '%s\n' "$out" | grep -qi 're-using existing connection' || fail "connection not reused"

t "SIGTERM stops the agent and the entrypoint"
EP=$(entry_pid)
stop_agent TERM
[ "$rc" = 0 ] || fail "exit status $rc, expected 0"
dead "$EP" || fail "entrypoint $EP survived"
expect_status '.state == "signaled" and .signal == 15 and .pid == '"$EP"' and (.finishedAt | endswith("Z"))'
grep -q '^allox-agent: received SIGTERM' "$DIR/err" || fail "no shutdown log line"
curl -s --max-time 2 -o /dev/null "http://127.0.0.1:$PORT/ping" && fail "still serving"

t "entrypoint that exits 3"
start_agent -- sh -c 'exit 3'
expect_status '.state == "exited" and .exitCode == 3 and (.pid | type) == "number" and .argv == ["sh","-c","exit 3"]
	and (.startedAt | endswith("Z")) and (.finishedAt | endswith("Z"))'
req GET /ping
expect_code 200
grep -q '^allox-agent: entrypoint pid [0-9]* exited with status 3' "$DIR/err" || fail "no log line"
stop_agent
[ "$rc" = 0 ] || fail "exit status $rc"

t "entrypoint that does not exist"
start_agent -- /nonexistent/prog arg
expect_status '.state == "failed" and .error == "exec /nonexistent/prog: No such file or directory"
	and .argv == ["/nonexistent/prog","arg"] and (has("pid") | not)'
req GET /ping
expect_code 200
sleep 0.2
status_is '.state == "failed"' || fail "failed state overwritten: $(cat "$DIR/run/entrypoint.json")"
stop_agent
[ "$rc" = 0 ] || fail "exit status $rc"

t "entrypoint found on PATH, no -- needed"
start_agent sleep 30
expect_status '.state == "running" and .argv == ["sleep","30"]'
stop_agent
[ "$rc" = 0 ] || fail "exit status $rc"

t "orphans are reaped"
start_agent -- sh -c '(sleep 0.8 &); (sleep 0.8 &); (sleep 0.8 &); exec sleep 30'
# The three sleeps are orphans re-parented to the agent (a subreaper here,
# PID 1 in a sandbox) next to the entrypoint itself.
until_true 5 at_least_children 4 || fail "orphans not re-parented to the agent ($(children))"
until_true 15 exactly_children 1 || fail "children left: $(children)"
no_zombies || fail "zombie children: $(want=Z children)"
req GET /ping
expect_code 200
stop_agent
[ "$rc" = 0 ] || fail "exit status $rc"

t "an entrypoint that ignores SIGTERM is killed after 2 s"
start_agent -- sh -c 'trap "" TERM; sleep 30; true'
expect_status '.state == "running"'
EP=$(entry_pid)
stop_agent TERM 40
[ "$rc" = 0 ] || fail "exit status $rc, expected 0"
dead "$EP" || fail "entrypoint $EP survived"
expect_status '.state == "signaled" and .signal == 9'
grep -q 'sending SIGKILL' "$DIR/err" || fail "no SIGKILL log line"

t "SIGINT also stops the agent"
start_agent -- sleep 30
EP=$(entry_pid)
stop_agent INT
[ "$rc" = 0 ] || fail "exit status $rc, expected 0"
dead "$EP" || fail "entrypoint $EP survived"

t "as PID 1 of a PID namespace, everything is stopped"
NS="unshare --user --map-root-user --pid --fork --mount-proc"
if $NS true 2>/dev/null; then
	# A TERM-proof daemon outside the entrypoint's process group: only PID 1
	# duties (reaping it as an orphan, kill(-1)) account for it.
	WRAP=$NS
	start_agent -- sh -c 'setsid sh -c "trap \"\" TERM; while :; do sleep 0.1; done" "daemon-$0" & exec sleep 30' \
		"$TMP/a$((n + 1))"
	WRAP=
	NSPID=$PID
	until_true 10 at_least_children 1 || fail "no agent under unshare"
	PID=$(for f in /proc/[0-9]*/stat; do
		read -r line 2>/dev/null <"$f" || continue
		set -- ${line##*) }
		[ "${2:-}" = "$NSPID" ] && { echo "${f#/proc/}" | cut -d/ -f1; break; }
	done)
	expect_status '.state == "running" and .pid == 2'
	grep -q '(pid 1)' "$DIR/err" || fail "agent is not PID 1"
	req GET /ping
	expect_code 200
	until_true 10 grep -qs -F "daemon-$DIR" /proc/[0-9]*/cmdline || fail "daemon did not start"
	kill -TERM "$PID"
	until_true 40 dead "$PID" || fail "agent still running"
	grep -q 'sending SIGKILL' "$DIR/err" || fail "the daemon was not waited for"
	# unshare exits with the agent's status.
	PID=$NSPID
	until_true 10 dead "$PID" || fail "unshare still running"
	wait "$PID"
	rc=$?
	[ "$rc" = 0 ] || fail "exit status $rc, expected 0"
	! grep -qs -F "daemon-$DIR" /proc/[0-9]*/cmdline || fail "daemon survived"
else
	echo "SKIP: $name (unshare cannot create a PID namespace here)"
fi

summary
