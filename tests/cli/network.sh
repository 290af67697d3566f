#!/bin/sh
# Network isolation: a sandbox has its own network namespace with
# its own loopback, reaches other hosts through a user-mode stack, and
# cannot reach the host's loopback, other sandboxes or link-local addresses;
# the host reaches its ports only through endpoints the engine forwards.
#
# The whole test runs in a network namespace of its own (re-executed under
# unshare -n): the engine, its user-mode stacks and the stand-in upstream
# live there, so "the host" below is that namespace, the upstream is an
# address on its loopback, and nothing can reach past this machine (there
# is no other interface). Host-wide state is not touched.
if [ -z "${ALLOX_NET_TEST_NS:-}" ]; then
	ALLOX_NET_TEST_NS=1 exec unshare -n sh "$0" "$@"
fi
. "${TESTS_DIR:-tests}/cli/lib.sh"
. "${TESTS_DIR:-tests}/cli/engine_lib.sh"

ip link set lo up || { echo "cannot bring up the test's loopback" >&2; exit 1; }
UPSTREAM=10.213.0.1
ip addr add "$UPSTREAM/32" dev lo

[ -x /usr/bin/slirp4netns ] || { echo "SKIP: slirp4netns (Debian package slirp4netns) is not installed"; exit 77; }

# serve DIR ADDR PORT: a static HTTP server of the test ("the host's"),
# stopped at exit with the rest.
SERVERS=""
serve() {
	(cd "$1" && exec python3 -m http.server "$3" --bind "$2") >/dev/null 2>&1 &
	SERVERS="$SERVERS $!"
	wait_until 10 curl -s -o /dev/null "http://$2:$3/" || echo "server on $2:$3 did not start" >&2
}
trap 'kill $SERVERS 2>/dev/null; stop_engine; rm -rf "$TMP"' EXIT

inside() {
	run allox run -- "$1"
}

rec() {
	jq -r "$2" "$STATE/$1/record.json"
}

mkdir -p "$TMP/www"
echo "from the host" >"$TMP/www/index.html"
echo "from upstream" >"$TMP/www/up.txt"
HOSTPORT=18431
UPPORT=18432
serve "$TMP/www" 127.0.0.1 "$HOSTPORT"
serve "$TMP/www" "$UPSTREAM" "$UPPORT"

run allox sandbox create -o json
A=$(jq -r .id "$TMP/out")
[ -n "$A" ] || { fail "create"; done_testing; exit 1; }
run allox sandbox create -o json
B=$(jq -r .id "$TMP/out")
allox session use "$A" >/dev/null

t "a sandbox has its own namespace: loopback and one interface, its network shown by get"
inside 'awk -F: "NR > 2 {gsub(/ /, \"\", \$1); print \$1}" /proc/net/dev | sort | tr "\n" " "; echo'
expect_out "eth0 lo "
run allox sandbox get "$A" -o json
[ "$(jq -r .network "$TMP/out")" = isolated ] || fail "network $(jq -r .network "$TMP/out")"
[ "$(readlink "/proc/$(rec "$A" .runtime.initPid)/ns/net")" != "$(readlink /proc/self/ns/net)" ] ||
	fail "PID 1 is in the host's network namespace"

t "outbound connectivity through the stack reaches the upstream"
inside "curl -sS -m 10 http://$UPSTREAM:$UPPORT/up.txt"
expect_rc 0
expect_out "from upstream"

t "the host's loopback services are out of reach (directly and through the gateway)"
inside "curl -sS -m 5 http://127.0.0.1:$HOSTPORT/"
[ "$rc" -ne 0 ] || fail "host loopback server reached on 127.0.0.1"
inside "curl -sS -m 5 http://10.0.2.2:$HOSTPORT/"
[ "$rc" -ne 0 ] || fail "host loopback server reached through the gateway"

t "link-local addresses (cloud metadata) are prohibited, AF_PACKET is denied"
inside 'python3 -c "
import socket
try:
    socket.create_connection((\"169.254.169.254\", 80), timeout=3)
    print(\"connected\")
except OSError as e:
    print(e.errno)
"'
expect_out "13"
inside 'python3 -c "import socket; socket.socket(socket.AF_PACKET, socket.SOCK_RAW)"'
[ "$rc" -ne 0 ] || fail "AF_PACKET socket made"

t "/proc/net shows none of the host's sockets"
agent_a=$(rec "$A" .runtime.agentPort)
agent_b=$(rec "$B" .runtime.agentPort)
inside 'cat /proc/net/tcp /proc/net/tcp6'
for p in $HOSTPORT $agent_a $agent_b; do
	hex=$(printf ':%04X ' "$p")
	grep -q "$hex" "$TMP/out" && fail "port $p shows in the sandbox's /proc/net/tcp"
done

t "another sandbox's agent (and browser) ports are out of reach"
for p in $agent_b $agent_a; do
	inside "curl -sS -m 5 http://127.0.0.1:$p/ping; curl -sS -m 5 http://10.0.2.2:$p/ping"
	grep -q pong "$TMP/out" && fail "agent port $p reached"
done
if command -v chromium >/dev/null 2>&1; then
	# B's Chromium listens in B's namespace only.
	run allox aio browser info "$B" -o json
	cdp=$(jq -r '.cdp_url // empty' "$TMP/out" | sed -n 's|ws://127.0.0.1:\([0-9]*\)/.*|\1|p')
	if [ -n "$cdp" ]; then
		inside "curl -sS -m 5 http://127.0.0.1:$cdp/json/version"
		grep -q webSocketDebuggerUrl "$TMP/out" && fail "B's DevTools reached from A"
	fi
fi

t "a server on 127.0.0.1 inside works inside and is invisible outside"
inside 'mkdir -p /home/gem/www && echo "from the sandbox" > /home/gem/www/index.html &&
	(cd /home/gem/www && nohup python3 -m http.server 8123 --bind 127.0.0.1 >/dev/null 2>&1 &) &&
	for i in $(seq 100); do curl -s -o /dev/null http://127.0.0.1:8123/ && break; sleep 0.1; done;
	curl -sS http://127.0.0.1:8123/'
expect_out "from the sandbox"
run curl -sS -m 5 http://127.0.0.1:8123/
[ "$rc" -ne 0 ] || fail "the sandbox's server is reachable on the host's loopback"
run allox run -- "$B" 'curl -sS -m 5 http://127.0.0.1:8123/'
[ "$rc" -ne 0 ] || fail "A's server is reachable from B"

t "sandbox endpoint --port forwards from the host's loopback into the sandbox"
run allox sandbox endpoint --port 8123 -o json
expect_rc 0
url=$(jq -r .url "$TMP/out")
case "$url" in http://127.0.0.1:*) ;; *) fail "url $url" ;; esac
[ "$(jq -r .port "$TMP/out")" = 8123 ] || fail "port"
run curl -sS -m 10 "$url/"
expect_out "from the sandbox"
# A second request gets the same forwarder; a big body streams through.
run allox sandbox endpoint --port 8123 -o raw
[ "$(tail -1 "$TMP/out")" = "$url" ] || fail "a second endpoint differs: $(tail -1 "$TMP/out")"
inside 'head -c 20000000 /dev/urandom > /home/gem/www/big && sha256sum < /home/gem/www/big'
want=$(cut -d' ' -f1 "$TMP/out")
got=$(curl -sS -m 60 "$url/big" | sha256sum | cut -d' ' -f1)
[ "$got" = "$want" ] || fail "20 MB through the endpoint: $got, expected $want"
# Other sandboxes cannot use it: the host's loopback is out of their reach.
port=${url##*:}
run allox run -- "$B" "curl -sS -m 5 http://127.0.0.1:$port/; curl -sS -m 5 http://10.0.2.2:$port/"
grep -q "from the sandbox" "$TMP/out" && fail "B reached A's endpoint"

t "the endpoint of a port nothing listens on is an error, not an address"
run allox sandbox endpoint --port 8124 -o json
expect_rc 1
grep -q "nothing listens on port 8124" "$TMP/err" || fail "message"
code=$(curl -s -o "$TMP/body" -w '%{http_code}' --unix-socket "$ALLOX_HOME/run/engine.sock" \
	"http://x/v1/sandboxes/$A/endpoints/8124")
[ "$code" = 404 ] || fail "lifecycle answer $code"
jq -e '.code == "SANDBOX::PORT_NOT_LISTENING"' "$TMP/body" >/dev/null || fail "code: $(cat "$TMP/body")"

t "the stack is the sandbox's unprivileged host uid, and ends with the sandbox"
np=$(rec "$A" .runtime.netPid)
[ -n "$np" ] && [ "$np" -gt 0 ] || fail "no netPid"
[ "$(awk '/^Uid:/ {print $2}' "/proc/$np/status")" = "$(rec "$A" .uidBase)" ] || fail "stack uid"
[ "$(awk '/^CapEff:/ {print $2}' "/proc/$np/status")" = 0000000000000000 ] || fail "stack has capabilities"
run allox sandbox kill "$A"
expect_rc 0
wait_until 5 gone "$np" || fail "the stack outlived its sandbox"
# A sandbox whose PID 1 dies takes its stack along, engine or not.
np=$(rec "$B" .runtime.netPid)
kill -9 "$(rec "$B" .runtime.initPid)"
wait_until 5 gone "$np" || fail "the stack outlived its sandbox's PID 1"
allox sandbox kill "$B" >/dev/null 2>&1

t "--network none: loopback only"
run allox sandbox create --network none -o json
expect_rc 0
N=$(jq -r .id "$TMP/out")
inside 'awk -F: "NR > 2 {gsub(/ /, \"\", \$1); print \$1}" /proc/net/dev | sort | tr "\n" " "; echo'
expect_out "lo "
inside "curl -sS -m 5 http://$UPSTREAM:$UPPORT/up.txt"
[ "$rc" -ne 0 ] || fail "upstream reached"
[ "$(rec "$N" .runtime.netPid)" = 0 ] || fail "a stack runs"
inside 'cd /home/gem && (nohup python3 -m http.server 8125 --bind 127.0.0.1 >/dev/null 2>&1 &);
	for i in $(seq 100); do curl -s -o /dev/null http://127.0.0.1:8125/ && break; sleep 0.1; done'
run allox sandbox endpoint --port 8125 -o json
expect_rc 0
run curl -sS -m 10 -o /dev/null -w '%{http_code}\n' "$(jq -r .url "$TMP/out")/"
expect_out "200"
allox sandbox kill "$N" >/dev/null

t "--network host: the host's namespace, its loopback services in reach (unsafe opt-out)"
run allox sandbox create --network host -o json
expect_rc 0
H=$(jq -r .id "$TMP/out")
[ "$(rec "$H" .network)" = host ] || fail "record"
inside "curl -sS -m 5 http://127.0.0.1:$HOSTPORT/"
expect_out "from the host"
run allox sandbox endpoint --port "$HOSTPORT" -o json
expect_rc 0
[ "$(jq -r .url "$TMP/out")" = "http://127.0.0.1:$HOSTPORT" ] || fail "url $(jq -r .url "$TMP/out")"
allox sandbox kill "$H" >/dev/null

t "an unknown network mode is refused"
run allox sandbox create --network bridge
expect_rc 2
code=$(curl -s -o "$TMP/body" -w '%{http_code}' --unix-socket "$ALLOX_HOME/run/engine.sock" \
	-H 'Content-Type: application/json' -d '{"image":{"uri":"host"},"entrypoint":["true"],"extensions":{"allox.network":"bridge"}}' \
	http://x/v1/sandboxes)
[ "$code" = 400 ] || fail "lifecycle answer $code: $(cat "$TMP/body")"

stop_engine
done_testing
