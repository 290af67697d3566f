#!/bin/sh
# Listeners that hold: anyone on the host, a sandbox included,
# can open connections to an agent's loopback port and to the engine's TCP
# port without credentials. Hundreds of idle connections, and slow ones that
# trickle a header they never finish, must neither lock the owner out nor
# cost the servers a thread each: the owner's `run` and a keyed engine
# request still answer while 400 sit on the agent and 1500 on the engine, a
# flood past what the engine can hold closes the oldest, and everything
# works once they are gone (src/lib/listen_gate.h, docs/design.md).
. "${TESTS_DIR:-tests}/cli/lib.sh"
. "${TESTS_DIR:-tests}/cli/engine_lib.sh"

: "${HOLD_CONNS:?HOLD_CONNS must point at tests/helpers/hold_conns}"

HOLDERS=""
SMALL="$TMP/small"

stop_holders() {
	for h_pid in $HOLDERS; do
		kill "$h_pid" 2>/dev/null
	done
	for h_pid in $HOLDERS; do
		wait "$h_pid" 2>/dev/null
	done
	HOLDERS=""
}

stop_small() {
	[ -f "$SMALL/run/engine.pid" ] || return 0
	s_pid=$(cat "$SMALL/run/engine.pid")
	kill "$s_pid" 2>/dev/null
	wait_until 10 gone "$s_pid" || kill -9 "$s_pid" 2>/dev/null
	rm -f "$SMALL/run/engine.pid"
}
trap 'stop_holders; stop_small; stop_engine; rm -rf "$TMP"' EXIT

KEY=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
PORT=$(free_port)

# tcp [PORT] ARGS...: allox-cli against an engine's TCP listener with the key.
tcp() {
	"$ALLOX_CLI" --domain "127.0.0.1:$PORT" --api-key "$KEY" "$@"
}

# hold NAME PORT ARGS...: hold_conns on 127.0.0.1:PORT in the background,
# its status in $TMP/NAME.status.
hold() {
	h_name=$1
	h_port=$2
	shift 2
	rm -f "$TMP/$h_name.status"
	"$HOLD_CONNS" --port "$h_port" --status "$TMP/$h_name.status" --lifetime 300 "$@" &
	HOLDERS="$HOLDERS $!"
}

# field NAME KEY [COLUMN]: a number from NAME's status file (0 before the first).
field() {
	f_v=$(awk -v k="$2" -v c="${3:-2}" '$1 == k { print $c }' "$TMP/$1.status" 2>/dev/null)
	echo "${f_v:-0}"
}

# opened NAME IDLE SLOW: that many of each kind are open.
opened() {
	[ "$(field "$1" open 2)" -ge "$2" ] && [ "$(field "$1" open 3)" -ge "$3" ]
}

# slow_closed NAME N: the server has closed N slow connections.
slow_closed() {
	[ "$(field "$1" closed 3)" -ge "$2" ]
}

threads() {
	awk '$1 == "Threads:" { print $2 }' "/proc/$1/status"
}

# timed CMD...: run it (see run); its wall time in ms in $ms.
timed() {
	t_start=$(date +%s%N)
	run "$@"
	ms=$(( ($(date +%s%N) - t_start) / 1000000 ))
}

# expect_fast LIMIT_MS: the last timed command took less than LIMIT_MS.
expect_fast() {
	[ "$ms" -lt "$1" ] || fail "took $ms ms (limit $1)"
}

# established PORT: the number of established connections to 127.0.0.1:PORT.
established() {
	ss -Htn state established "( sport = :$1 )" | wc -l
}

# headers URL [CURL ARGS...]: the response's status line and headers, lower case.
headers() {
	h_url=$1
	shift
	curl -s -o /dev/null -D - --max-time 10 "$@" "$h_url" | tr -d '\r' | tr A-Z a-z
}

NOFILE_HARD=$(ulimit -Hn)
if [ "$NOFILE_HARD" = unlimited ] || [ "$NOFILE_HARD" -gt 1024 ]; then
	NOFILE_GIVEN=1024
else
	NOFILE_GIVEN=$NOFILE_HARD
fi

t "the engine takes its hard descriptor limit; sandboxes get the one it was given"
# A soft limit below the hard one, as systemd and login shells give.
OPEN_SANDBOX_API_KEY=$KEY run sh -c 'ulimit -S -n "$1" && shift && exec "$@"' sh "$NOFILE_GIVEN" \
	"$ALLOX_ENGINE" --home "$ALLOX_HOME" --listen "127.0.0.1:$PORT"
expect_rc 0
EPID=$(engine_pid)
[ -n "$EPID" ] && alive "$EPID" || fail "engine not running"
grep -q "^Max open files  *$NOFILE_HARD  *$NOFILE_HARD " "/proc/$EPID/limits" ||
	fail "engine: $(grep 'open files' "/proc/$EPID/limits")"
run allox sandbox create -o json
expect_rc 0
ID=$(jq -r .id "$TMP/out")
AGENT=$(jq -r .runtime.initPid "$STATE/$ID/record.json")
AGENT_PORT=$(jq -r .runtime.agentPort "$STATE/$ID/record.json")
TOKEN=$(jq -r .runtime.token "$STATE/$ID/record.json")
run allox run -- sh -c 'ulimit -Sn'
expect_rc 0
expect_out "$NOFILE_GIVEN"
# Setting the sandbox's left the engine's alone.
grep -q "^Max open files  *$NOFILE_HARD  *$NOFILE_HARD " "/proc/$EPID/limits" ||
	fail "engine after a create: $(grep 'open files' "/proc/$EPID/limits")"

t "without the key or the token, an answer closes the connection"
headers "http://127.0.0.1:$PORT/v1/sandboxes" >"$TMP/h"
grep -q '^http/1.1 401' "$TMP/h" || fail "engine, no key: $(cat "$TMP/h")"
grep -q '^connection: close' "$TMP/h" || fail "engine, no key: kept open: $(cat "$TMP/h")"
headers "http://127.0.0.1:$PORT/v1/sandboxes" -H "OPEN-SANDBOX-API-KEY: wrong" >"$TMP/h"
grep -q '^http/1.1 401' "$TMP/h" && grep -q '^connection: close' "$TMP/h" || fail "engine, wrong key: $(cat "$TMP/h")"
headers "http://127.0.0.1:$PORT/health" >"$TMP/h"
grep -q '^http/1.1 200' "$TMP/h" && grep -q '^connection: close' "$TMP/h" || fail "engine, /health: $(cat "$TMP/h")"
headers "http://127.0.0.1:$PORT/v1/sandboxes" -H "OPEN-SANDBOX-API-KEY: $KEY" >"$TMP/h"
grep -q '^http/1.1 200' "$TMP/h" || fail "engine, key: $(cat "$TMP/h")"
grep -q '^connection: close' "$TMP/h" && fail "engine, key: not kept open"
headers "http://127.0.0.1:$AGENT_PORT/ping" >"$TMP/h"
grep -q '^http/1.1 401' "$TMP/h" && grep -q '^connection: close' "$TMP/h" || fail "agent, no token: $(cat "$TMP/h")"
headers "http://127.0.0.1:$AGENT_PORT/ping" -H "X-EXECD-ACCESS-TOKEN: $TOKEN" >"$TMP/h"
grep -q '^http/1.1 200' "$TMP/h" || fail "agent, token: $(cat "$TMP/h")"
grep -q '^connection: close' "$TMP/h" && fail "agent, token: not kept open"

t "a header sent in pieces, or after empty lines, is served"
# Through the agent's gate: a request line, then the rest 300 ms later.
run python3 -c '
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"\r\nGET /ping HTTP/1.1\r\n")
time.sleep(0.3)
s.sendall(b"Host: 127.0.0.1\r\nX-EXECD-ACCESS-TOKEN: " + sys.argv[2].encode() + b"\r\nConnection: close\r\n\r\n")
s.settimeout(10)
data = b""
while True:
    chunk = s.recv(4096)
    if not chunk:
        break
    data += chunk
print(data.split(b"\r\n")[0].decode())
' "$AGENT_PORT" "$TOKEN"
expect_rc 0
expect_out "HTTP/1.1 200 OK"

BASE_AGENT=$(threads "$AGENT")
BASE_ENGINE=$(threads "$EPID")
timed allox run -- true
expect_rc 0
BEFORE_MS=$ms

t "400 idle and 20 slow connections on the agent: no thread each, the owner's run answers"
hold agent "$AGENT_PORT" --idle 400 --slow 20 --refill
wait_until 30 opened agent 400 20 || fail "not all open: $(cat "$TMP/agent.status")"
[ "$(threads "$AGENT")" -le $((BASE_AGENT + 8)) ] || fail "agent threads: $(threads "$AGENT") (was $BASE_AGENT)"
for i in 1 2 3; do
	timed allox run -- true
	expect_rc 0
	expect_fast 5000
done
echo "# run -- true: $BEFORE_MS ms alone, $ms ms beside 400 idle and 20 slow connections" >&2
timed allox run -- echo still-here
expect_out still-here

t "a keyed request answers while 1500 idle and 20 slow connections sit on the engine's TCP port"
if [ "$NOFILE_HARD" != unlimited ] && [ "$NOFILE_HARD" -lt 2100 ]; then
	echo "# skipped: the hard descriptor limit ($NOFILE_HARD) is below 2100" >&2
else
	hold engine "$PORT" --idle 1500 --slow 20 --refill
	wait_until 30 opened engine 1500 20 || fail "not all open: $(cat "$TMP/engine.status")"
	[ "$(threads "$EPID")" -le $((BASE_ENGINE + 8)) ] || fail "engine threads: $(threads "$EPID") (was $BASE_ENGINE)"
	timed tcp sandbox list -o json
	expect_rc 0
	expect_fast 5000
	jq -e --arg id "$ID" 'map(.id) == [$id]' "$TMP/out" >/dev/null || fail "list: $(cat "$TMP/out")"
	timed tcp sandbox get "$ID" -o json
	expect_rc 0
	expect_fast 5000
	timed allox run -- true
	expect_rc 0
	expect_fast 5000
fi

t "connections without a whole header are closed 10 s after they were accepted"
# However they trickle bytes; the holders open new ones meanwhile.
wait_until 25 slow_closed agent 20 || fail "slow ones not closed: $(cat "$TMP/agent.status")"
slow_ms=$(field agent slow_max_ms)
[ "$slow_ms" -ge 9000 ] && [ "$slow_ms" -le 16000 ] || fail "a slow connection lived $slow_ms ms"
[ "$(field agent closed 2)" -ge 400 ] || fail "idle ones not closed: $(cat "$TMP/agent.status")"
if [ -f "$TMP/engine.status" ]; then
	wait_until 25 slow_closed engine 20 || fail "engine: slow ones not closed: $(cat "$TMP/engine.status")"
	[ "$(field engine closed 2)" -ge 1500 ] || fail "engine: idle ones not closed: $(cat "$TMP/engine.status")"
fi
# The second generation, held meanwhile, locks nobody out either.
timed allox run -- true
expect_rc 0
expect_fast 5000
timed tcp sandbox list -o json
expect_rc 0
expect_fast 5000

t "after the connections close, everything still works"
stop_holders
wait_until 15 eval '[ "$(established "$AGENT_PORT")" -eq 0 ] && [ "$(established "$PORT")" -eq 0 ]' ||
	fail "still established: agent $(established "$AGENT_PORT"), engine $(established "$PORT")"
timed allox run -- echo after
expect_rc 0
expect_out after
expect_fast 5000
run tcp sandbox list -o json
expect_rc 0
jq -e --arg id "$ID" 'map(.id) == [$id]' "$TMP/out" >/dev/null || fail "list: $(cat "$TMP/out")"
wait_until 10 eval '[ "$(threads "$AGENT")" -le $((BASE_AGENT + 2)) ]' ||
	fail "agent threads: $(threads "$AGENT") (was $BASE_AGENT)"
wait_until 10 eval '[ "$(threads "$EPID")" -le $((BASE_ENGINE + 2)) ]' ||
	fail "engine threads: $(threads "$EPID") (was $BASE_ENGINE)"

t "past what the engine can hold, the oldest connection goes and a keyed request still answers"
# 256 descriptors let the gate hold 128: a peer that reopens every
# connection closed keeps it full all along.
SMALL_PORT=$(free_port)
OPEN_SANDBOX_API_KEY=$KEY run sh -c 'ulimit -n 256 && exec "$@"' sh \
	"$ALLOX_ENGINE" --home "$SMALL" --listen "127.0.0.1:$SMALL_PORT"
expect_rc 0
hold small "$SMALL_PORT" --idle 400 --refill
wait_until 15 eval '[ "$(field small closed 2)" -ge 100 ]' || fail "nothing evicted: $(cat "$TMP/small.status")"
for i in 1 2 3; do
	timed "$ALLOX_CLI" --domain "127.0.0.1:$SMALL_PORT" --api-key "$KEY" sandbox list -o json
	expect_rc 0
	expect_fast 5000
	expect_out "[]"
done
[ "$(field small closed 2)" -ge 272 ] || fail "too few evicted: $(cat "$TMP/small.status")"
stop_holders
stop_small

t "the sandbox ends cleanly"
run allox sandbox kill "$ID"
expect_rc 0
expect_clean_stop

done_testing
