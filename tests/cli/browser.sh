#!/bin/sh
# The sandbox's browser against a real local engine and a real Chromium:
# aio browser info and its cdp_url used from the host (HTTP discovery and a
# CDP client over the WebSocket), aio screenshot (PNG and JPEG whose size is
# the viewport, written atomically), usage errors, the 503 without Chromium,
# a restart after Chromium died, two sandboxes with two browsers, and no
# browser left after sandbox kill.
. "${TESTS_DIR:-tests}/cli/lib.sh"
. "${TESTS_DIR:-tests}/cli/engine_lib.sh"

: "${CDP_EVAL:?CDP_EVAL must point at tests/helpers/cdp_eval}"
: "${BROWSER_API:?BROWSER_API must point at tests/helpers/browser_api}"

allox sandbox create -o json > "$TMP/created" || { echo "cannot create a sandbox"; exit 1; }
ID=$(jq -r .id "$TMP/created")

# agent_get ID PATH: GET PATH from sandbox ID's agent with its token; body in
# $TMP/body, headers in $TMP/hdr, status in $code.
agent_get() {
	curl -sS --max-time 10 --unix-socket "$ALLOX_HOME/run/engine.sock" -o "$TMP/ep.json" \
		"http://x/v1/sandboxes/$1/endpoints/44772"
	code=$(curl -sS --max-time 120 -o "$TMP/body" -D "$TMP/hdr" -w '%{http_code}' \
		-H "X-EXECD-ACCESS-TOKEN: $(jq -r '.headers["X-EXECD-ACCESS-TOKEN"]' "$TMP/ep.json")" \
		"http://$(jq -r .endpoint "$TMP/ep.json")$2")
}

# header NAME: the last response's header NAME (case-insensitive).
header() {
	tr -d '\r' <"$TMP/hdr" | awk -v n="$1" 'BEGIN { n = tolower(n) ":" }
		{ i = index($0, ":"); if (i && tolower(substr($0, 1, i)) == n) { v = substr($0, i + 1); sub(/^ +/, "", v) } }
		END { printf "%s", v }'
}

# hex FILE OFFSET COUNT: COUNT bytes of FILE from OFFSET as lowercase hex.
hex() {
	od -An -tx1 -j "$2" -N "$3" "$1" | tr -d ' \n'
}

# be32 FILE OFFSET: the big-endian 32-bit number at OFFSET.
be32() {
	echo $((0x$(hex "$1" "$2" 4)))
}

# port_of CDP_URL: the port of the agent's DevTools relay on the host.
port_of() {
	printf '%s' "$1" | sed -n 's|^ws://127\.0\.0\.1:\([0-9]*\)/cdp/[0-9a-f]*/devtools/browser/.*|\1|p'
}

# http_base CDP_URL: the relay's http:// URL with its secret path.
http_base() {
	printf '%s' "$1" | sed -n 's|^ws://\(.*\)/devtools/browser/.*|http://\1|p'
}

# browser_pid ID: the host pid of sandbox ID's Chromium (the process started
# with its profile and the DevTools flag, not one of its helpers).
browser_pid() {
	profile=$(allox aio exec "$1" -- ls /home/gem/.cache/allox-browser | head -n 1)
	[ -n "$profile" ] || return 1
	for f in /proc/[0-9]*/cmdline; do
		c=$(tr '\0' ' ' 2>/dev/null <"$f")
		case $c in *--type=*) continue ;; esac
		case $c in *"$profile"*) ;; *) continue ;; esac
		case $c in *--remote-debugging-port=*) p=${f#/proc/}; echo "${p%/cmdline}"; return 0 ;; esac
	done
	return 1
}

# no_process_with TEXT: no process's command line contains TEXT.
no_process_with() {
	for f in /proc/[0-9]*/cmdline; do
		case $(tr '\0' ' ' 2>/dev/null <"$f") in *"$1"*) return 1 ;; esac
	done
	return 0
}

t "aio browser info: user agent, cdp_url on 127.0.0.1, vnc_url null, viewport"
run allox aio browser info -o json
expect_rc 0
jq -e '(.user_agent | test("HeadlessChrome/")) and (.cdp_url | test("^ws://127\\.0\\.0\\.1:[0-9]+/cdp/[0-9a-f]{32}/devtools/browser/[0-9a-f-]+$"))
	and .vnc_url == null and .viewport == {width: 1280, height: 1024} and .page_viewport == .viewport' \
	"$TMP/out" >/dev/null || fail "json"
cp "$TMP/out" "$TMP/info1"
CDP=$(jq -r .cdp_url "$TMP/info1")
PORT=$(port_of "$CDP")
run allox aio browser info
expect_rc 0
expect_out_has "cdp_url:"
expect_out_has "$CDP"
run allox aio browser info "$ID" -o yaml
expect_rc 0
expect_out_has "vnc_url: null"

t "the same browser answers the next call"
run allox aio browser info -o json
[ "$(jq -r .cdp_url "$TMP/out")" = "$CDP" ] || fail "cdp_url changed"

t "cdp_url from the host: /json/version names the browser and the same WebSocket"
curl -sS --max-time 10 "$(http_base "$CDP")/json/version" >"$TMP/out" 2>"$TMP/err" || fail "curl"
jq -e --arg u "$CDP" '(.Browser | test("^(Headless)?Chrome/[0-9.]+$")) and .webSocketDebuggerUrl == $u' \
	"$TMP/out" >/dev/null || fail "json/version"

t "DevTools only through the relay, with its secret path or the sandbox's token"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "http://127.0.0.1:$PORT/json/version")
[ "$code" = 401 ] || fail "no secret, no token: $code"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "http://127.0.0.1:$PORT/cdp/00000000000000000000000000000000/json/version")
[ "$code" = 401 ] || fail "a wrong secret: $code"
tok=$(curl -sf --unix-socket "$ALLOX_HOME/run/engine.sock" "http://x/v1/sandboxes/$ID/endpoints/44772" |
	jq -r '.headers["X-EXECD-ACCESS-TOKEN"]')
curl -sS --max-time 10 -H "X-EXECD-ACCESS-TOKEN: $tok" "http://127.0.0.1:$PORT/json/version" >"$TMP/out" 2>"$TMP/err" ||
	fail "curl with the token"
jq -e '.Browser | test("Chrome/")' "$TMP/out" >/dev/null || fail "json/version with the token"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -H "X-EXECD-ACCESS-TOKEN: x$tok" "http://127.0.0.1:$PORT/json/version")
[ "$code" = 401 ] || fail "a wrong token: $code"

t "cdp_url from the host: Runtime.evaluate over the WebSocket returns 2 for 1+1"
run "$CDP_EVAL" "$CDP" "1+1"
expect_rc 0
expect_out "2"

t "aio screenshot: a PNG whose IHDR size is the viewport"
run allox aio screenshot -f "$TMP/shot.png" -o json
expect_rc 0
[ "$(hex "$TMP/shot.png" 0 8)" = 89504e470d0a1a0a ] || fail "PNG signature"
[ "$(hex "$TMP/shot.png" 12 4)" = 49484452 ] || fail "IHDR"
[ "$(be32 "$TMP/shot.png" 16)" = 1280 ] && [ "$(be32 "$TMP/shot.png" 20)" = 1024 ] || fail "IHDR size"
jq -e --arg p "$TMP/shot.png" --argjson n "$(wc -c <"$TMP/shot.png")" \
	'. == {path: $p, format: "png", width: 1280, height: 1024, bytes: $n}' "$TMP/out" >/dev/null || fail "json"
ls "$TMP" | grep -q 'shot.png.tmp' && fail "temporary file left"

t "aio screenshot prints a table by default"
run allox aio screenshot "$ID" -f "$TMP/table.png"
expect_rc 0
expect_out_has "Screenshot"
expect_out_has "format: png"
expect_out_has "width:  1280"

t "aio screenshot --format jpeg: a JPEG of the viewport's size"
run allox aio screenshot -f "$TMP/shot.jpg" --format jpeg --quality 40 -o json
expect_rc 0
[ "$(hex "$TMP/shot.jpg" 0 2)" = ffd8 ] || fail "JPEG SOI"
jq -e '.format == "jpeg" and .width == 1280 and .height == 1024' "$TMP/out" >/dev/null || fail "json"

t "the route: image bytes with Content-Type and x-image-width/height headers"
agent_get "$ID" "/v1/browser/screenshot?format=jpg&quality=90"
[ "$code" = 200 ] || fail "status $code"
[ "$(header content-type)" = image/jpeg ] || fail "content type $(header content-type)"
[ "$(header x-image-width)" = 1280 ] && [ "$(header x-image-height)" = 1024 ] || fail "size headers"
[ "$(hex "$TMP/body" 0 2)" = ffd8 ] || fail "not a JPEG"
agent_get "$ID" "/v1/browser/screenshot"
[ "$code" = 200 ] && [ "$(header content-type)" = image/png ] || fail "default png: $code"

t "the route: a bad format or quality is 422 naming the field"
agent_get "$ID" "/v1/browser/screenshot?format=gif"
[ "$code" = 422 ] || fail "status $code"
jq -e '.success == false and .detail[0].loc == ["query", "format"]' "$TMP/body" >/dev/null || fail "body"
agent_get "$ID" "/v1/browser/screenshot?format=jpeg&quality=101"
[ "$code" = 422 ] && jq -e '.detail[0].loc == ["query", "quality"]' "$TMP/body" >/dev/null || fail "quality 101: $code"

t "usage errors exit 2 and write nothing"
run allox aio screenshot -f "$TMP/bad.png" --format gif
expect_rc 2
expect_err_has "gif"
run allox aio screenshot -f "$TMP/bad.png" --format jpeg --quality 101
expect_rc 2
run allox aio screenshot -f "$TMP/bad.png" --quality 50
expect_rc 2
run allox aio screenshot
expect_rc 2
[ ! -e "$TMP/bad.png" ] || fail "file written"

t "a screenshot into a missing directory fails and leaves nothing"
run allox aio screenshot -f "$TMP/missing/shot.png"
expect_rc 1
expect_err_has "missing/shot.png"
[ ! -e "$TMP/missing" ] || fail "created something"

t "a page navigated from the host shows in the next screenshot"
run "$CDP_EVAL" "$CDP" --navigate 'data:text/html,<title>one</title><body style="background:%23ff0000">one</body>'
expect_rc 0
title_is() {
	[ "$("$CDP_EVAL" "$1" "document.title")" = "\"$2\"" ]
}
wait_until 20 title_is "$CDP" one || fail "title"
# Same format and size as the blank page's shot.png: only the page differs.
run allox aio screenshot -f "$TMP/red.png" -o json
expect_rc 0
jq -e '.width == 1280 and .height == 1024' "$TMP/out" >/dev/null || fail "size"
cmp -s "$TMP/red.png" "$TMP/shot.png" && fail "the same image as the blank page"

t "two sandboxes: two browsers, different ports and processes, independent pages and viewports"
allox sandbox create -e ALLOX_AGENT_BROWSER_VIEWPORT=800x600 -o json > "$TMP/created2" || fail "second sandbox"
ID2=$(jq -r .id "$TMP/created2")
run allox aio browser info "$ID2" -o json
expect_rc 0
jq -e '.viewport == {width: 800, height: 600} and .page_viewport == .viewport' "$TMP/out" >/dev/null ||
	fail "viewport of the second sandbox"
CDP2=$(jq -r .cdp_url "$TMP/out")
PORT2=$(port_of "$CDP2")
[ -n "$PORT2" ] && [ "$PORT2" != "$PORT" ] || fail "ports $PORT and $PORT2"
PID1=$(browser_pid "$ID")
PID2=$(browser_pid "$ID2")
[ -n "$PID1" ] && [ -n "$PID2" ] && [ "$PID1" != "$PID2" ] || fail "pids '$PID1' and '$PID2'"
run "$CDP_EVAL" "$CDP2" "document.title"
expect_out '""'
run "$CDP_EVAL" "$CDP2" --navigate 'data:text/html,<title>two</title>two'
wait_until 20 title_is "$CDP2" two || fail "second title"
title_is "$CDP" one || fail "the first browser changed"
run allox aio screenshot "$ID2" -f "$TMP/small.png" -o json
expect_rc 0
[ "$(be32 "$TMP/small.png" 16)" = 800 ] && [ "$(be32 "$TMP/small.png" 20)" = 600 ] || fail "IHDR of the 800x600 viewport"

t "Chromium is started again when it has died"
kill -9 "$PID1"
dead() {
	! alive "$PID1"
}
wait_until 20 dead || fail "still running"
run allox aio browser info "$ID" -o json
expect_rc 0
NEW=$(jq -r .cdp_url "$TMP/out")
[ -n "$NEW" ] && [ "$NEW" != "$CDP" ] || fail "same cdp_url $NEW"
run "$CDP_EVAL" "$NEW" "1+1"
expect_out "2"
run allox aio screenshot "$ID" -f "$TMP/after.png"
expect_rc 0
run allox aio exec "$ID" -- sh -c 'ls /home/gem/.cache/allox-browser | wc -l'
expect_out "1"

t "the browser is gone after sandbox kill"
PROFILE2=$(allox aio exec "$ID2" -- ls /home/gem/.cache/allox-browser)
[ -n "$PROFILE2" ] || fail "no profile"
run allox sandbox kill "$ID2"
expect_rc 0
gone() {
	! curl -s --max-time 2 -o /dev/null "http://127.0.0.1:$PORT2/json/version" && no_process_with "$PROFILE2"
}
wait_until 20 gone || fail "Chromium of $ID2 still there"

t "without Chromium the routes answer 503 naming the package; the file stays untouched"
allox sandbox create -e ALLOX_AGENT_CHROMIUM=/nonexistent/chromium -o json > "$TMP/created3" || fail "third sandbox"
ID3=$(jq -r .id "$TMP/created3")
run allox aio browser info "$ID3"
expect_rc 1
expect_err_has "AIO API error (503)"
expect_err_has "Debian package chromium"
printf 'old' >"$TMP/keep.png"
run allox aio screenshot "$ID3" -f "$TMP/keep.png" -o json
expect_rc 1
jq -e '.error.message | test("503")' "$TMP/err" >/dev/null 2>&1 || grep -q 503 "$TMP/err" || fail "json error"
[ "$(cat "$TMP/keep.png")" = old ] || fail "file changed"
ls "$TMP" | grep -q 'keep.png.tmp' && fail "temporary file left"
agent_get "$ID3" /v1/browser/info
[ "$code" = 503 ] && jq -e '.success == false and (.message | test("chromium"))' "$TMP/body" >/dev/null || fail "route $code"
agent_get "$ID3" /v1/browser/screenshot
[ "$code" = 503 ] || fail "screenshot route $code"

allox sandbox kill "$ID" >/dev/null 2>&1
allox sandbox kill "$ID3" >/dev/null 2>&1

# The module's internal API (browser.h), which the MCP hub's browser tools
# use, driven by tests/helpers/browser_api against a Chromium of its own.
BHOME="$TMP/bhome"
mkdir -p "$BHOME"
api() {
	HOME=$BHOME "$BROWSER_API" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
}
# step_is N TEXT: line N of the output is TEXT.
step_is() {
	[ "$(sed -n "${1}p" "$TMP/out")" = "$2" ] || fail "step $1: $(sed -n "${1}p" "$TMP/out"), expected $2"
}

t "browser API: navigate gives the title; evaluate gives JSON values; text is the page's text"
api 'nav:data:text/html,<title>Doc</title><p>hello text</p><p>second</p>' 'eval:1+1' \
	'eval:Promise.resolve({a: [1, "x"]})' 'eval:undefined' text 'eval:document.title'
expect_rc 0
step_is 1 "nav ok Doc"
step_is 2 "eval ok 2"
step_is 3 'eval ok {"a":[1,"x"]}'
step_is 4 "eval ok null"
step_is 5 "text ok hello text||second"
step_is 6 'eval ok "Doc"'

t "browser API: errors are 400 with the reason (exception, bad URL, network failure, format)"
api "eval:throw new Error('boom')" 'eval:(' nav:notaurl nav:http://127.0.0.1:1/ nav: shot:gif
expect_rc 0
sed -n 1p "$TMP/out" | grep -q '^eval 400 Error: boom' || fail "exception"
sed -n 3p "$TMP/out" | grep -q '^eval 400 SyntaxError' || fail "syntax error"
sed -n 4p "$TMP/out" | grep -q '^nav 400 .*invalid URL' || fail "bad URL"
sed -n 5p "$TMP/out" | grep -q '^nav 400 .*net::ERR_UNSAFE_PORT' || fail "network failure"
sed -n 6p "$TMP/out" | grep -q '^nav 400 ' || fail "empty URL"
sed -n 7p "$TMP/out" | grep -q '^shot 400 unsupported screenshot format' || fail "format"

t "browser API: a page that never answers is a 504 at the timeout; the browser goes on"
# A server that accepts and never answers, for 60 s at most.
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
conns = []
end = time.time() + 60
s.settimeout(1)
while time.time() < end:
    try: conns.append(s.accept()[0])
    except socket.timeout: pass
' >"$TMP/hang.port" &
HANG=$!
wait_until 10 test -s "$TMP/hang.port" || fail "no server"
api "nav1:http://127.0.0.1:$(cat "$TMP/hang.port")/" 'eval:1+1'
kill "$HANG" 2>/dev/null
expect_rc 0
sed -n 1p "$TMP/out" | grep -q '^nav 504 .* within 1 s' || fail "timeout"
step_is 2 "eval ok 2"

t "browser API: a crashed page is replaced by a new one"
api nav1:chrome://crash shot:png 'eval:1+1' shot:png
expect_rc 0
# The crash ends the call in flight (503) or is found by the next one.
sed -n 2p "$TMP/out" | grep -Eq '^shot (503 .*crashed|ok )' || fail "the call after the crash"
step_is 3 "eval ok 2"
sed -n 4p "$TMP/out" | grep -q '^shot ok png 1280x1024 ' || fail "screenshot of the new page"

t "browser API: calls from four threads at once are serialised, each answered right"
api par shot:png shot:jpeg
expect_rc 0
step_is 1 "par ok 40"
step_is 2 "shot ok png 1280x1024 $(sed -n 2p "$TMP/out" | awk '{ print $5 }')"
sed -n 3p "$TMP/out" | grep -q '^shot ok jpeg 1280x1024 [0-9]' || fail "jpeg"

t "browser API: a stale profile is removed at start; freeing the module ends Chromium and removes its profile"
mkdir -p "$BHOME/.cache/allox-browser/profile-stale/Default"
api info
expect_rc 0
grep -q '^info ok {' "$TMP/out" || fail "info"
no_process_with "$BHOME/.cache/allox-browser" || fail "Chromium still running"
[ -z "$(ls "$BHOME/.cache/allox-browser")" ] || fail "profile left"

t "no cgroup is left of a sandbox of this test: ended ones, then all once the engine stops"
expect_clean_stop

done_testing
