#!/bin/sh
# The server proxy: with use_server_proxy the endpoint goes through the
# engine (/v1/sandboxes/{id}/proxy/{port}), which forwards to the sandbox's
# port a client that reaches only the engine, behind the API key or the
# sandbox's proxy token, neither of which reaches the sandbox; with expires
# the endpoint is signed and the engine refuses it once expired or altered.
. "${TESTS_DIR:-tests}/cli/lib.sh"
. "${TESTS_DIR:-tests}/cli/engine_lib.sh"
trap 'stop_engine; rm -rf "$TMP"' EXIT
export ALLOX_ENGINE_CLOCK_OFFSET_FILE="$TMP/clock"
echo 0 >"$ALLOX_ENGINE_CLOCK_OFFSET_FILE"
KEY=proxy-test-key-$$
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
BASE="http://127.0.0.1:$PORT"

# api METHOD PATH [BODY]: the lifecycle API over TCP with the key; body in
# $TMP/api, status in $code.
api() {
	code=$(curl -s -o "$TMP/api" -w '%{http_code}' -X "$1" -H "OPEN-SANDBOX-API-KEY: $KEY" \
		${3:+-H 'Content-Type: application/json' -d "$3"} "$BASE/v1$2")
}

# get URL [curl args]: body in $TMP/got, status in $code.
get() {
	_u=$1
	shift
	code=$(curl -s -o "$TMP/got" -w '%{http_code}' "$@" "$_u")
}

OPEN_SANDBOX_API_KEY=$KEY run "$ALLOX_ENGINE" --home "$ALLOX_HOME" --listen "127.0.0.1:$PORT"
[ "$rc" -eq 0 ] || { echo "engine did not start: $(cat "$TMP/err")" >&2; exit 1; }

# A server in the sandbox that answers with the path and headers it got.
SERVER='import http.server as h
class H(h.BaseHTTPRequestHandler):
    def do_GET(s):
        if s.headers.get("Upgrade"):
            s.send_response(101); s.send_header("Upgrade", "echo"); s.send_header("Connection", "Upgrade"); s.end_headers()
            s.wfile.flush()
            while True:
                d = s.rfile.read1(4096)
                if not d: break
                s.wfile.write(d); s.wfile.flush()
            s.close_connection = True
            return
        b = (s.path + "\n" + str(s.headers)).encode()
        s.send_response(200); s.send_header("Content-Length", str(len(b))); s.end_headers(); s.wfile.write(b)
h.HTTPServer(("127.0.0.1", 8000), H).serve_forever()'
api POST /sandboxes "$(jq -cn --arg s "$SERVER" '{image: {uri: "host"}, entrypoint: ["python3", "-c", $s], resourceLimits: {}}')"
[ "$code" = 202 ] || { echo "create: $code $(cat "$TMP/api")" >&2; exit 1; }
ID=$(jq -r .id "$TMP/api")
listening() {
	api GET "/sandboxes/$ID/endpoints/8000"
	[ "$code" = 200 ]
}
wait_until 20 listening || echo "the sandbox's server did not start" >&2

t "use_server_proxy: the endpoint goes through the engine, with the sandbox's proxy token"
api GET "/sandboxes/$ID/endpoints/8000?use_server_proxy=true"
[ "$code" = 200 ] || fail "status $code: $(cat "$TMP/api")"
EP=$(jq -r .endpoint "$TMP/api")
TOKEN=$(jq -r '.headers["X-Allox-Proxy-Token"]' "$TMP/api")
[ "$EP" = "127.0.0.1:$PORT/v1/sandboxes/$ID/proxy/8000" ] || fail "endpoint $EP"
[ ${#TOKEN} -eq 64 ] || fail "token $TOKEN"

t "the proxy forwards the path and query, and neither the key nor the token reaches the sandbox"
get "http://$EP/some/path?x=1" -H "X-Allox-Proxy-Token: $TOKEN" -H "X-Other: kept"
[ "$code" = 200 ] || fail "status $code: $(cat "$TMP/got")"
[ "$(head -1 "$TMP/got")" = "/some/path?x=1" ] || fail "path: $(head -1 "$TMP/got")"
grep -qi '^X-Other: kept' "$TMP/got" || fail "a header was lost"
grep -qi 'proxy-token\|open-sandbox-api-key' "$TMP/got" && fail "credentials reached the sandbox"
get "http://$EP" -H "OPEN-SANDBOX-API-KEY: $KEY"
[ "$code" = 200 ] && [ "$(head -1 "$TMP/got")" = / ] || fail "with the API key: $code $(head -1 "$TMP/got")"
grep -qi 'open-sandbox-api-key' "$TMP/got" && fail "the API key reached the sandbox"

t "a client that reuses its connection to the API is sent to the proxy on a new one (307), and gets there"
curl -sL -o /dev/null -o "$TMP/second" -w '%{http_code} %{num_redirects}\n' -H "X-Allox-Proxy-Token: $TOKEN" \
	-H "OPEN-SANDBOX-API-KEY: $KEY" "$BASE/v1/sandboxes/$ID" "http://$EP/reused?a=1&b=x%20y" >"$TMP/codes"
[ "$(cat "$TMP/codes" | tr '\n' ' ')" = "200 0 200 1 " ] || fail "statuses: $(cat "$TMP/codes")"
[ "$(head -1 "$TMP/second")" = "/reused?a=1&b=x%20y" ] || fail "the path after the redirect: $(head -1 "$TMP/second")"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "OPEN-SANDBOX-API-KEY: $KEY" "$BASE/v1/sandboxes/$ID" \
	"http://$EP/x" | tail -c 3)
[ "$code" = 307 ] || fail "without -L the second answer is $code, not 307"

t "without the key or token, or with another sandbox's token, the proxy answers 401 in the spec's shape"
get "http://$EP/"
[ "$code" = 401 ] || fail "no credentials: $code"
jq -e 'keys == ["code","message"]' "$TMP/got" >/dev/null || fail "body: $(cat "$TMP/got")"
get "http://$EP/" -H "X-Allox-Proxy-Token: $(printf '%064d' 0)"
[ "$code" = 401 ] || fail "wrong token: $code"
get "$BASE/v1/sandboxes/00000000-0000-4000-8000-000000000000/proxy/8000/" -H "OPEN-SANDBOX-API-KEY: $KEY"
[ "$code" = 404 ] || fail "missing sandbox: $code"

t "an Upgrade passes through the proxy: the connection then relays bytes both ways"
run python3 -c '
import socket, sys
host, port = sys.argv[1].split("/")[0].split(":")
path = "/" + sys.argv[1].split("/", 1)[1] + "/ws"
s = socket.create_connection((host, int(port)), timeout=10)
s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nUpgrade: echo\r\nConnection: Upgrade\r\nX-Allox-Proxy-Token: %s\r\n\r\n" % (path, sys.argv[2])).encode())
head = b""
while b"\r\n\r\n" not in head:
    head += s.recv(1)
print(head.split(b"\r\n")[0].decode())
s.sendall(b"ping-1")
got = b""
while len(got) < 6:
    got += s.recv(6 - len(got))
print(got.decode())' "$EP" "$TOKEN"
expect_rc 0
[ "$(head -1 "$TMP/out")" = "HTTP/1.0 101 Switching Protocols" ] || [ "$(head -1 "$TMP/out")" = "HTTP/1.1 101 Switching Protocols" ] ||
	fail "no 101"
[ "$(sed -n 2p "$TMP/out")" = ping-1 ] || fail "no echo through the upgraded connection"

t "the agent's ports through the proxy keep the agent's token"
api GET "/sandboxes/$ID/endpoints/44772?use_server_proxy=true"
jq -e '.headers["X-EXECD-ACCESS-TOKEN"] and .headers["X-Allox-Proxy-Token"]' "$TMP/api" >/dev/null ||
	fail "headers: $(cat "$TMP/api")"
EXECD=$(jq -r .endpoint "$TMP/api")
AGENT=$(jq -r '.headers["X-EXECD-ACCESS-TOKEN"]' "$TMP/api")
get "http://$EXECD/ping" -H "X-Allox-Proxy-Token: $TOKEN" -H "X-EXECD-ACCESS-TOKEN: $AGENT"
[ "$code" = 200 ] || fail "execd ping: $code $(cat "$TMP/got")"
get "http://$EXECD/files/info?path=/etc/hostname" -H "X-Allox-Proxy-Token: $TOKEN"
[ "$code" = 401 ] || fail "execd without its token: $code"

t "the egress API (port 18080) through the proxy, with its own header"
api GET "/sandboxes/$ID/endpoints/18080?use_server_proxy=true"
[ "$code" = 200 ] || fail "status $code: $(cat "$TMP/api")"
EGP=$(jq -r .endpoint "$TMP/api")
EAUTH=$(jq -r '.headers["OPENSANDBOX-EGRESS-AUTH"]' "$TMP/api")
[ "$EGP" = "127.0.0.1:$PORT/v1/sandboxes/$ID/proxy/18080" ] || fail "endpoint $EGP"
get "http://$EGP/policy" -H "X-Allox-Proxy-Token: $TOKEN" -H "OPENSANDBOX-EGRESS-AUTH: $EAUTH"
[ "$code" = 200 ] && jq -e '.status == "ok"' "$TMP/got" >/dev/null || fail "policy: $code $(cat "$TMP/got")"
get "http://$EGP/policy" -H "X-Allox-Proxy-Token: $TOKEN"
[ "$code" = 401 ] || fail "the egress API without its header: $code"

t "expires: a signed endpoint works without headers until it expires, and not altered"
NOW=$(date +%s)
api GET "/sandboxes/$ID/endpoints/8000?expires=$((NOW + 600))"
[ "$code" = 200 ] || fail "status $code: $(cat "$TMP/api")"
SIGNED=$(jq -r .endpoint "$TMP/api")
case $SIGNED in "127.0.0.1:$PORT/v1/sandboxes/$ID/proxy/8000/sig-"*) ;; *) fail "signed endpoint $SIGNED" ;; esac
jq -e 'has("headers") | not' "$TMP/api" >/dev/null || fail "a signed endpoint needs headers: $(cat "$TMP/api")"
get "http://$SIGNED/in"
[ "$code" = 200 ] && [ "$(head -1 "$TMP/got")" = /in ] || fail "signed: $code $(head -1 "$TMP/got")"
case $SIGNED in *0) ALTERED=${SIGNED%?}1 ;; *) ALTERED=${SIGNED%?}0 ;; esac
get "http://$ALTERED/in"
[ "$code" = 401 ] || fail "altered signature: $code"
get "http://$(echo "$SIGNED" | sed "s|/proxy/8000/|/proxy/8001/|")/in"
[ "$code" = 401 ] || fail "signature for another port: $code"
echo 700 >"$ALLOX_ENGINE_CLOCK_OFFSET_FILE"
get "http://$SIGNED/in"
[ "$code" = 401 ] || fail "expired: $code"
echo 0 >"$ALLOX_ENGINE_CLOCK_OFFSET_FILE"

t "bad combinations are 400"
api GET "/sandboxes/$ID/endpoints/8000?expires=$((NOW + 600))&use_server_proxy=true"
[ "$code" = 400 ] || fail "both: $code"
api GET "/sandboxes/$ID/endpoints/8000?expires=1"
[ "$code" = 400 ] || fail "past expiry: $code"
api GET "/sandboxes/$ID/endpoints/8000?use_server_proxy=maybe"
[ "$code" = 400 ] || fail "use_server_proxy=maybe: $code"

t "on the unix socket both are ignored: the endpoint is the direct one"
curl -s --unix-socket "$ALLOX_HOME/run/engine.sock" \
	"http://x/v1/sandboxes/$ID/endpoints/8000?use_server_proxy=true" >"$TMP/out"
jq -e '.endpoint | test("^127\\.0\\.0\\.1:[0-9]+$")' "$TMP/out" >/dev/null || fail "$(cat "$TMP/out")"

api DELETE "/sandboxes/$ID"
done_testing
