#!/bin/sh
# Access against a real local engine that also listens on TCP with
# an API key: the key and the agents' tokens are required, compared whole, and
# never shown; the engine's files are private; a sandbox reaches neither the
# engine's state, another sandbox's files nor a host file.
# Covered elsewhere: the agent's 401 for a missing, wrong, shortened or
# lengthened token (agent.sh), the engine's 401 bodies against the spec
# (conformance/lifecycle.sh), /etc writes and the invisible ALLOX_HOME and
# /tmp (sandbox.sh).
. "${TESTS_DIR:-tests}/cli/lib.sh"
. "${TESTS_DIR:-tests}/cli/engine_lib.sh"

# A host file in a directory sandboxes see (the host's /var, read-only below
# their own layer), and one in /var/tmp, which they must not see at all.
HOSTFILE=/var/cache/allox-access.$$
HOSTTMP=/var/tmp/allox-access.$$
# A second home inside a directory sandboxes see.
HOME2=/var/cache/allox-access-home.$$

stop_home2() {
	[ -f "$HOME2/run/engine.pid" ] || return 0
	h2_pid=$(cat "$HOME2/run/engine.pid")
	kill -9 "$h2_pid" 2>/dev/null
	wait_until 10 gone "$h2_pid"
	for r in "$HOME2"/engine/sandboxes/*/record.json; do
		[ -f "$r" ] && kill -9 "$(jq -r '.runtime.initPid // empty' "$r")" 2>/dev/null
	done
}
trap 'stop_engine; stop_home2; rm -rf "$HOME2"; rm -f "$HOSTFILE" "$HOSTTMP"; rm -rf "$TMP"' EXIT

KEY=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
BASE="http://127.0.0.1:$PORT"

# code URL [CURL ARGS...]: the HTTP status of a GET; the body in $TMP/body.
code() {
	c_url=$1
	shift
	curl -s -o "$TMP/body" -w '%{http_code}' --max-time 10 "$@" "$c_url"
}

# tcp ARGS...: allox-cli against the engine's TCP listener with the key.
tcp() {
	"$ALLOX_CLI" --domain "127.0.0.1:$PORT" --api-key "$KEY" "$@"
}

t "the engine starts on the socket and on TCP with a key from the environment"
# From the environment on purpose: no sandbox may inherit it.
OPEN_SANDBOX_API_KEY=$KEY run "$ALLOX_ENGINE" --home "$ALLOX_HOME" --listen "127.0.0.1:$PORT"
expect_rc 0
EPID=$(engine_pid)
[ -n "$EPID" ] && alive "$EPID" || fail "engine not running"
[ "$(code "$BASE/health")" = 200 ] || fail "/health needs no key"

t "TCP: a missing API key is 401 MISSING_API_KEY"
[ "$(code "$BASE/v1/sandboxes")" = 401 ] || fail "no key: not 401"
jq -e '.code == "MISSING_API_KEY"' "$TMP/body" >/dev/null || fail "body: $(cat "$TMP/body")"
[ "$(code "$BASE/v1/sandboxes" -H "OPEN-SANDBOX-API-KEY;")" = 401 ] || fail "empty key: not 401"

t "TCP: a wrong, shortened, lengthened or case-changed API key is 401 INVALID_API_KEY"
upper=$(printf %s "$KEY" | tr a-f A-F)
short=$(printf %s "$KEY" | cut -c2-)
for k in wrong "${KEY}x" "$short" "$(printf %s "$KEY" | cut -c1-31)" "$upper" "$KEY$KEY"; do
	[ "$(code "$BASE/v1/sandboxes" -H "OPEN-SANDBOX-API-KEY: $k")" = 401 ] || fail "key '$k' accepted"
	jq -e '.code == "INVALID_API_KEY"' "$TMP/body" >/dev/null || fail "key '$k': $(cat "$TMP/body")"
done
[ "$(code "$BASE/sandboxes" -H "OPEN-SANDBOX-API-KEY: wrong")" = 401 ] || fail "unprefixed route without the key"
[ "$(code "$BASE/v1/sandboxes" -H "OPEN-SANDBOX-API-KEY: $KEY")" = 200 ] || fail "the right key refused"

t "the CLI shows a refused key as one line, exit 1"
run "$ALLOX_CLI" --domain "127.0.0.1:$PORT" sandbox list
expect_rc 1
expect_err "Error: Sandbox error [MISSING_API_KEY]: Authentication credentials are missing"
expect_empty_out
run "$ALLOX_CLI" --domain "127.0.0.1:$PORT" --api-key "not-the-key" sandbox list
expect_rc 1
expect_err "Error: Sandbox error [INVALID_API_KEY]: Authentication credentials are invalid"
run "$ALLOX_CLI" --domain "127.0.0.1:$PORT" --api-key "not-the-key" sandbox list -o json
expect_rc 1
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "json error not one line"
jq -e '.error.code == "INVALID_API_KEY"' "$TMP/err" >/dev/null || fail "json error"
grep -q not-the-key "$TMP/err" && fail "the refused key is echoed"

t "the engine's files are private: home 0700, socket 0600 in a 0700 directory"
[ "$(stat -c %a "$ALLOX_HOME")" = 700 ] || fail "ALLOX_HOME mode $(stat -c %a "$ALLOX_HOME")"
[ "$(stat -c %a "$ALLOX_HOME/run")" = 700 ] || fail "run dir mode"
[ "$(stat -c %a "$ALLOX_HOME/run/engine.sock")" = 600 ] || fail "socket mode"
[ "$(stat -c %a "$ALLOX_HOME/engine")" = 700 ] || fail "engine dir mode"
[ "$(stat -c %a "$STATE")" = 700 ] || fail "sandboxes dir mode"
# The socket needs no key: its permissions are the access control.
curl -sf --unix-socket "$ALLOX_HOME/run/engine.sock" http://x/v1/sandboxes >/dev/null || fail "socket refused"

t "sandboxes through TCP with the key; records that hold a token are 0600"
echo original >"$HOSTTMP"
if echo original 2>/dev/null >"$HOSTFILE"; then
	chmod 644 "$HOSTFILE"
else
	HOSTFILE=""
fi
run tcp --verbose sandbox create --image host -o json
expect_rc 0
cp "$TMP/err" "$TMP/verbose.create"
A=$(jq -r .id "$TMP/out")
run tcp sandbox create --image host -o json
expect_rc 0
B=$(jq -r .id "$TMP/out")
TOKEN_A=$(jq -r .runtime.token "$STATE/$A/record.json")
TOKEN_B=$(jq -r .runtime.token "$STATE/$B/record.json")
[ ${#TOKEN_A} -ge 32 ] && [ "$TOKEN_A" != "$TOKEN_B" ] || fail "tokens: '$TOKEN_A' '$TOKEN_B'"
[ "$(stat -c %a "$STATE/$A/record.json")" = 600 ] || fail "record mode"
[ "$(stat -c %a "$STATE/$A")" = 700 ] || fail "sandbox dir mode"

t "an agent refuses no token, a wrong one and another sandbox's"
PORT_A=$(jq -r .runtime.agentPort "$STATE/$A/record.json")
AGENT_A="http://127.0.0.1:$PORT_A"
[ "$(code "$AGENT_A/ping")" = 401 ] || fail "no token accepted"
[ "$(code "$AGENT_A/ping" -H "X-EXECD-ACCESS-TOKEN: $TOKEN_B")" = 401 ] || fail "B's token opens A"
[ "$(code "$AGENT_A/ping" -H "X-EXECD-ACCESS-TOKEN: $KEY")" = 401 ] || fail "the API key opens an agent"
[ "$(code "$AGENT_A/files/info?path=/etc/hostname" -H "X-EXECD-ACCESS-TOKEN: ${TOKEN_A}0")" = 401 ] ||
	fail "a longer token accepted"
[ "$(code "$AGENT_A/ping" -H "X-EXECD-ACCESS-TOKEN: $TOKEN_A")" = 200 ] || fail "A's token refused"

t "the agent's command line and environment carry neither the token nor the key"
INIT_A=$(jq -r .runtime.initPid "$STATE/$A/record.json")
for f in cmdline environ; do
	tr '\0' '\n' <"/proc/$INIT_A/$f" >"$TMP/agent.$f" || fail "cannot read the agent's $f"
	grep -qF -e "$TOKEN_A" -e "$KEY" "$TMP/agent.$f" && fail "secret in the agent's $f"
done
[ -s "$TMP/agent.cmdline" ] || fail "empty agent cmdline: the check above proves nothing"

t "a sandbox cannot reach the engine: no state, no socket, not its loopback TCP port"
# 000: no connection at all (the sandbox has its own network); a
# sandbox with the host's network would get the 401 of a request without
# the key.
run tcp run "$A" -- sh -c "test -e '$ALLOX_HOME' && echo home-visible
test -e '$STATE/$A' && echo state-visible
curl -s --max-time 5 --unix-socket '$ALLOX_HOME/run/engine.sock' http://x/v1/sandboxes && echo socket-answers
curl -s --max-time 5 -o /dev/null -w '%{http_code}\n' $BASE/v1/sandboxes
true"
expect_rc 0
expect_out "000"

t "no process in a sandbox holds the key or its token in its command line or environment"
# Dumped inside and searched outside, so the secrets are not in the command.
run tcp run "$A" -- sh -c 'cat /proc/[0-9]*/environ /proc/[0-9]*/cmdline 2>/dev/null | tr "\0" "\n"'
expect_rc 0
grep -q allox-agent "$TMP/out" || fail "the agent's command line not in the dump: the check proves nothing"
grep -F -e "$KEY" -e "$TOKEN_A" -e "$TOKEN_B" "$TMP/out" && fail "secret visible in the sandbox"

t "a sandbox cannot see or open another sandbox's files or agent"
run tcp run "$A" -- sh -c 'echo secret-of-a > /home/gem/secret-a && cat /home/gem/secret-a'
expect_out "secret-of-a"
run tcp run "$B" -- sh -c "ls /home/gem/secret-a 2>/dev/null
find /home /tmp /var/tmp /root /run /opt /srv /mnt -name secret-a 2>/dev/null
test -e '$STATE/$A/writable/layer/top/home/gem/secret-a' && echo layer-visible
curl -s --max-time 5 -o /dev/null -w '%{http_code}\n' $AGENT_A/files/download?path=/home/gem/secret-a
curl -s --max-time 5 -o /dev/null -w '%{http_code}\n' -H 'X-EXECD-ACCESS-TOKEN: $TOKEN_B' $AGENT_A/ping
true"
expect_rc 0
# A's agent is on the host's loopback, out of B's reach (000: no
# connection); with the host's network B would get 401s.
expect_out "000
000"

t "a sandbox cannot change a host file"
if [ -z "$HOSTFILE" ]; then
	echo "# skipped: cannot create a host file in /var/cache" >&2
else
	run tcp run "$A" -- sh -c "cat $HOSTFILE; echo changed > $HOSTFILE; echo more >> $HOSTFILE; chmod 666 $HOSTFILE
cat $HOSTFILE; rm -f $HOSTFILE && test ! -e $HOSTFILE && echo removed"
	expect_rc 0
	# Inside, the writes land in the sandbox's own layer...
	expect_out "original
changed
more
removed"
	# ...and the host's file is untouched.
	[ "$(cat "$HOSTFILE")" = original ] || fail "host file content changed: $(cat "$HOSTFILE")"
	[ "$(stat -c %a "$HOSTFILE")" = 644 ] || fail "host file mode changed"
fi
# The agent binary is the host's own file, bound read-only.
run tcp run "$A" -- sh -c '(: >> /.allox/bin/allox-agent) 2>/dev/null && echo agent-binary-writable; true'
expect_rc 0
expect_empty_out

t "host temporary files are not visible in a sandbox"
run tcp run "$A" -- sh -c "cat $HOSTTMP 2>/dev/null; ls -A /var/tmp"
expect_rc 0
expect_empty_out
[ "$(cat "$HOSTTMP")" = original ] || fail "host /var/tmp file changed"

t "no secret in logs, verbose output or JSON"
run tcp --verbose run "$A" -- echo hello
expect_out hello
cp "$TMP/err" "$TMP/verbose.run"
run tcp --verbose sandbox get "$A" -o json
cat "$TMP/out" "$TMP/err" >"$TMP/verbose.get"
jq -e --arg id "$A" '.id == $id' "$TMP/out" >/dev/null || fail "get output"
run tcp --verbose sandbox endpoint "$A" -o json
cat "$TMP/out" "$TMP/err" >"$TMP/verbose.endpoint"
run tcp --verbose sandbox list -o json
cat "$TMP/out" "$TMP/err" >"$TMP/verbose.list"
run tcp --verbose file write "$A" /home/gem/f.txt --content x
cat "$TMP/out" "$TMP/err" >"$TMP/verbose.file"
run tcp --verbose aio exec "$A" -- echo hi
cat "$TMP/out" "$TMP/err" >"$TMP/verbose.aio"
run allox --verbose sandbox get "$B" -o json
cat "$TMP/out" "$TMP/err" >"$TMP/verbose.local"
[ -s "$TMP/verbose.run" ] && [ -s "$TMP/verbose.create" ] || fail "no verbose output: the checks below prove nothing"
for f in "$TMP"/verbose.* "$ALLOX_HOME/engine.log" "$STATE/$A/console.log" "$STATE/$B/console.log" \
	"$ALLOX_HOME/sessions.json"; do
	[ -f "$f" ] || { fail "missing $f"; continue; }
	grep -lF -e "$KEY" -e "$TOKEN_A" -e "$TOKEN_B" "$f" && fail "secret in $f"
done
# Nothing in the sandboxes' own files either, nor elsewhere in the CLI's state.
grep -rlF -e "$KEY" -e "$TOKEN_A" -e "$TOKEN_B" "$STATE/$A/writable/layer" "$STATE/$B/writable/layer" "$ALLOX_HOME/cache" \
	2>/dev/null && fail "secret in a sandbox layer or the cache"
[ -s "$ALLOX_HOME/engine.log" ] || fail "empty engine.log: the check proves nothing"
grep -qF "$TOKEN_A" "$STATE/$A/record.json" || fail "the token is not where the scan expects it: the scan proves nothing"

t "an ALLOX_HOME inside a directory sandboxes see is hidden from them"
if ! mkdir -m 700 "$HOME2" 2>/dev/null; then
	echo "# skipped: cannot create $HOME2" >&2
else
	ALLOX_HOME=$HOME2 run "$ALLOX_CLI" sandbox create -o json
	expect_rc 0
	C=$(jq -r .id "$TMP/out")
	[ -S "$HOME2/run/engine.sock" ] && [ -f "$HOME2/engine/sandboxes/$C/record.json" ] || fail "second home not in use"
	ALLOX_HOME=$HOME2 run "$ALLOX_CLI" run "$C" -- sh -c "ls -A $HOME2; test -e $HOME2/run/engine.sock && echo socket-visible
test -e $HOME2/engine/sandboxes/$C/record.json && echo record-visible; true"
	expect_rc 0
	# The directory may show (as an empty cover), its contents must not.
	expect_empty_out
	ALLOX_HOME=$HOME2 run "$ALLOX_CLI" sandbox kill "$C"
	expect_rc 0
	stop_home2
fi

t "cleanup"
run tcp sandbox kill "$A"
expect_rc 0
run tcp sandbox kill "$B"
expect_rc 0

t "no cgroup is left of a sandbox of this test: ended ones, then all once the engine stops"
expect_clean_stop "$HOME2"

done_testing
