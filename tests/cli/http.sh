#!/bin/sh
# The HTTP client against a scripted server (tests/cli/http_fixture.py):
# framings real servers use, a kept-alive connection closed while idle, cut
# and garbled answers, refused connections, and https through libcurl.
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/.." && pwd)
ID=11111111-2222-4333-8444-555555555555

python3 "$SRC/cli/http_fixture.py" "$TMP/port" "$TMP/log" &
fixture=$!
trap 'kill $fixture 2>/dev/null; [ -n "${tls:-}" ] && kill $tls 2>/dev/null; rm -rf "$TMP"' EXIT
i=0
while [ ! -s "$TMP/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
export ALLOX_DOMAIN="127.0.0.1:$(cat "$TMP/port")"

# one_error: stderr is one "Error:" line, at most followed by its one hint line.
one_error() {
	head -n 1 "$TMP/err" | grep -q '^Error: ' || fail "first line is not the error"
	[ "$(wc -l < "$TMP/err")" -le 2 ] || fail "more than an error and a hint"
	sed -n 2p "$TMP/err" | grep -q '^Error' && fail "two errors"
}

t "a kept-alive connection the server closed meanwhile is replaced, not reported"
: > "$TMP/log"
run allox sandbox pause "$ID" -o json
expect_rc 0
jq -e '.status == "paused"' "$TMP/out" >/dev/null || fail "not paused"
[ "$(grep -c connect "$TMP/log")" = 2 ] || fail "expected 2 connections: $(cat "$TMP/log")"
grep -q "^POST /v1/sandboxes/$ID/pause" "$TMP/log" || fail "no POST"
grep -q "^GET /v1/sandboxes/$ID" "$TMP/log" || fail "no GET"

t "chunked bodies and header names in any case"
run allox sandbox get "$ID" -o json
expect_rc 0
jq -e '.state == "Paused" or .status == "Paused" or .status.state == "Paused"' "$TMP/out" >/dev/null || fail "state"

t "a body that ends with the connection"
run allox sandbox list -o json
expect_rc 0
grep -q "$ID" "$TMP/out" || fail "sandbox not listed"

t "an answer cut short is one clear line and exit 1"
run allox sandbox kill "$ID"
expect_rc 1
expect_err_has "closed before the response was complete"
one_error

t "a garbled answer is one clear line and exit 1"
run allox sandbox resume "$ID"
expect_rc 1
expect_err_has "bad HTTP response"
one_error

t "a refused connection is one clear line and exit 1"
ALLOX_DOMAIN=127.0.0.1:1 run allox sandbox list
expect_rc 1
expect_err_has "cannot connect to 127.0.0.1 port 1: Connection refused"
one_error

t "with http_proxy set, plain http goes through the proxy (libcurl's proxy handling)"
: > "$TMP/log"
http_proxy="http://127.0.0.1:$(cat "$TMP/port")" ALLOX_DOMAIN=example.invalid:8080 run allox sandbox list
grep -q "^GET http://example.invalid:8080/v1/sandboxes" "$TMP/log" || fail "not sent to the proxy: $(cat "$TMP/log")"

t "allox-cli does not link libcurl: it loads it for https and proxies only"
ldd "$ALLOX_CLI" | grep -q libcurl && fail "libcurl linked: $(ldd "$ALLOX_CLI" | grep libcurl)"

t "https goes through libcurl and verifies the certificate"
if ! command -v openssl >/dev/null; then
	echo "SKIP: no openssl command"
else
	openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=localhost -days 1 \
		-keyout "$TMP/key.pem" -out "$TMP/cert.pem" >/dev/null 2>&1 || fail "no certificate"
	tport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	openssl s_server -quiet -www -accept "$tport" -cert "$TMP/cert.pem" -key "$TMP/key.pem" >/dev/null 2>&1 &
	tls=$!
	i=0
	# Ready once it completes a handshake: a bare TCP probe left s_server
	# busy with a half-open session while allox-cli waited (CI, under load).
	while ! openssl s_client -connect "127.0.0.1:$tport" </dev/null >/dev/null 2>&1 && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	ALLOX_DOMAIN="127.0.0.1:$tport" ALLOX_PROTOCOL=https run allox sandbox list
	expect_rc 1
	expect_err_has "https://127.0.0.1:$tport/v1/sandboxes"
	expect_err_has "certificate"
	one_error
fi

done_testing
