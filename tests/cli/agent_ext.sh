#!/bin/sh
# The agent's extension module: a fresh sandbox's agent maps
# neither libzmq, libwebsockets nor OpenSSL; the first Jupyter call loads
# allox-agent-ext.so (bind-mounted read-only beside the agent); an agent
# without its module, or with a broken one, answers those routes 503 naming
# it and serves everything else. Needs ALLOX_AGENT, ALLOX_LISTEN_FD, curl, jq
# and Debian's python3-ipykernel.
. "${TESTS_DIR:-tests}/cli/lib.sh"
. "${TESTS_DIR:-tests}/cli/engine_lib.sh"
: "${ALLOX_AGENT:?ALLOX_AGENT must point at the allox-agent binary}"
: "${ALLOX_LISTEN_FD:?ALLOX_LISTEN_FD must point at the listen_fd test helper}"

TOKEN=t0k3n-agent-ext-0123456789abcdef
APID=""
trap '[ -n "$APID" ] && kill -9 "$APID" 2>/dev/null; stop_engine; rm -rf "$TMP"' EXIT

# heavy_libs PID: the heavy libraries and the module PID maps, one per line.
heavy_libs() {
	awk '$6 ~ /(libzmq|libwebsockets|libcrypto|libssl)\.so|allox-agent-ext\.so/ { n = $6; sub(/.*\//, "", n); print n }' \
		"/proc/$1/maps" | sort -u
}

# start_agent DIR AGENT: AGENT (a copy of allox-agent) on a fresh port; sets
# APID and PORT.
start_agent() {
	mkdir -p "$1/run"
	rm -f "$1/port"
	"$ALLOX_LISTEN_FD" "$1/port" --token "$TOKEN" "$2" --listen-fd 3 --token-fd 4 --sandbox-id sb-ext \
		--status-file "$1/run/entrypoint.json" 2>"$1/err" &
	APID=$!
	wait_until 30 test -s "$1/port" || { fail "no port file"; return 1; }
	PORT=$(cat "$1/port")
	wait_until 30 curl -sf -o /dev/null -H "X-EXECD-ACCESS-TOKEN: $TOKEN" "http://127.0.0.1:$PORT/ping" ||
		fail "agent does not answer /ping"
}

stop_agent() {
	kill -9 "$APID" 2>/dev/null
	wait "$APID" 2>/dev/null
	APID=""
}

# call METHOD PATH [CURL-ARGS...]: sets $code, body in $TMP/body.
call() {
	m=$1 p=$2
	shift 2
	code=$(curl -s -o "$TMP/body" -w '%{http_code}' --max-time 60 -X "$m" -H "X-EXECD-ACCESS-TOKEN: $TOKEN" \
		"$@" "http://127.0.0.1:$PORT$p")
}

expect_code() {
	[ "$code" = "$1" ] || fail "$m $p: HTTP $code, expected $1: $(head -c 300 "$TMP/body")"
}

# expect_503_naming WHAT: the last reply is a 503 AIO failure naming the module and WHAT.
expect_503_naming() {
	expect_code 503
	jq -e --arg what "$1" '.success == false and (.message | contains("allox-agent-ext.so") and contains($what))' \
		"$TMP/body" >/dev/null || fail "$m $p: body does not name the module and '$1': $(cat "$TMP/body")"
}

allox sandbox create -o json > "$TMP/created" || { echo "cannot create a sandbox"; exit 1; }
ID=$(jq -r .id "$TMP/created")
PID=$(jq -r .runtime.initPid "$STATE/$ID/record.json")

t "a fresh sandbox's agent maps neither libzmq, libwebsockets, OpenSSL nor the module"
[ -r "/proc/$PID/maps" ] || fail "no /proc/$PID/maps"
heavy=$(heavy_libs "$PID")
[ -z "$heavy" ] || fail "maps: $heavy"

t "a fresh sandbox's agent stays under 5 MiB resident"
if [ "${ALLOX_TEST_NO_RSS:-0}" != 1 ]; then
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$PID/status")
	[ "${rss:-99999}" -lt 5120 ] || fail "VmRSS $rss KiB"
fi

t "the module is bind-mounted read-only beside the agent in /.allox/bin"
awk '$5 == "/.allox/bin/allox-agent-ext.so" { print $6 }' "/proc/$PID/mountinfo" > "$TMP/mnt"
grep -q '^ro' "$TMP/mnt" || fail "mount options: $(cat "$TMP/mnt")"

t "the first Jupyter call loads the module, and with it libzmq, libwebsockets and OpenSSL"
run allox aio jupyter run -c "print(6 * 7)"
expect_rc 0
expect_out "42"
heavy=$(heavy_libs "$PID" | tr '\n' ' ')
for lib in allox-agent-ext.so libzmq.so libwebsockets.so libcrypto.so; do
	case " $heavy" in *" $lib"*) ;; *) fail "$lib not mapped after a Jupyter call: $heavy" ;; esac
done

t "the module answers through the agent's own libmicrohttpd, not a second copy"
# A second copy would serve the agent's connections with its own globals.
awk '$6 ~ /libmicrohttpd/' "/proc/$PID/maps" | awk '{ print $6 }' | sort -u > "$TMP/mhd"
if ldd "$ALLOX_AGENT" | grep -q libmicrohttpd; then
	[ "$(wc -l < "$TMP/mhd")" -le 1 ] || fail "libmicrohttpd mapped twice: $(cat "$TMP/mhd")"
else
	[ ! -s "$TMP/mhd" ] || fail "static agent maps a shared libmicrohttpd after loading the module: $(cat "$TMP/mhd")"
fi

t "a static-libmicrohttpd agent maps no GnuTLS, even with the module loaded"
if ldd "$ALLOX_AGENT" | grep -q libmicrohttpd; then
	echo "# skipped: allox-agent links the shared libmicrohttpd (--disable-static-microhttpd)"
else
	awk '$6 ~ /lib(gnutls|nettle|hogweed|gmp|p11-kit|tasn1)\.so/' "/proc/$PID/maps" > "$TMP/tls"
	[ ! -s "$TMP/tls" ] || fail "maps: $(awk '{ print $6 }' "$TMP/tls" | sort -u | tr '\n' ' ')"
fi

t "in a rootfs image, where the agent runs through /.allox/ld.so, the module loads too"
mkdir -p "$TMP/rootfs/etc"
allox sandbox create -i "rootfs:$TMP/rootfs" -o json > "$TMP/rfs" || fail "cannot create a rootfs sandbox"
RID=$(jq -r .id "$TMP/rfs")
RPID=$(jq -r .runtime.initPid "$STATE/$RID/record.json")
tr '\0' ' ' < "/proc/$RPID/cmdline" | grep -q '^/.allox/ld.so .*/.allox/bin/allox-agent ' ||
	fail "agent not run through the loader: $(tr '\0' ' ' < "/proc/$RPID/cmdline")"
run allox aio mcp servers -o json "$RID"
expect_rc 0
jq -e '.servers | index("sandbox")' "$TMP/out" >/dev/null || fail "servers: $(cat "$TMP/out") $(cat "$TMP/err")"
heavy_libs "$RPID" | grep -q allox-agent-ext.so || fail "module not mapped"
allox sandbox kill "$RID" >/dev/null || fail "kill"

t "core routes work without the module and never load it"
mkdir -p "$TMP/full"
start_agent "$TMP/full" "$ALLOX_AGENT"
call GET /v1/sandbox
expect_code 200
call GET /v1/jupyter/execute
expect_code 405
call PUT /mcp
expect_code 405
heavy=$(heavy_libs "$APID")
[ -z "$heavy" ] || fail "maps after core routes and refusals: $heavy"
call GET /v1/mcp/servers
expect_code 200
jq -e '.success == true and (.data | index("sandbox"))' "$TMP/body" >/dev/null || fail "servers: $(cat "$TMP/body")"
heavy_libs "$APID" | grep -q allox-agent-ext.so || fail "module not mapped after GET /v1/mcp/servers"
stop_agent

t "concurrent first requests load the module once and all get their answer"
mkdir -p "$TMP/race"
start_agent "$TMP/race" "$ALLOX_AGENT"
for i in 1 2 3 4 5 6; do
	case $i in 1 | 4) p=/v1/jupyter/info ;; 2 | 5) p=/v1/mcp/servers ;; *) p=/v1/jupyter/sessions ;; esac
	curl -s -o "$TMP/race/body$i" -w '%{http_code}' --max-time 60 -H "X-EXECD-ACCESS-TOKEN: $TOKEN" \
		"http://127.0.0.1:$PORT$p" > "$TMP/race/code$i" &
	curls="${curls:-} $!"
done
# Not a bare wait: the agent is a background job too.
for c in $curls; do
	wait "$c"
done
for i in 1 2 3 4 5 6; do
	[ "$(cat "$TMP/race/code$i")" = 200 ] || fail "request $i: HTTP $(cat "$TMP/race/code$i"): $(cat "$TMP/race/body$i")"
done
n=$(grep -c "loaded .*allox-agent-ext.so" "$TMP/race/err")
[ "$n" = 1 ] || fail "module loaded $n times: $(cat "$TMP/race/err")"
stop_agent

t "without its module the agent answers 503 naming it, and serves the rest"
mkdir -p "$TMP/bare/bin"
cp "$ALLOX_AGENT" "$TMP/bare/bin/allox-agent"
start_agent "$TMP/bare" "$TMP/bare/bin/allox-agent"
call GET /v1/jupyter/info
expect_503_naming "No such file"
call POST /v1/jupyter/execute -H 'Content-Type: application/json' --data '{"code":"1"}'
expect_503_naming "/v1/jupyter/execute"
call GET /v1/browser/info
expect_503_naming "/v1/browser/info"
call POST /mcp -H 'Content-Type: application/json' --data '{"jsonrpc":"2.0","id":1,"method":"ping"}'
expect_503_naming "/mcp"
call GET /v1/sandbox
expect_code 200
alive "$APID" || fail "agent died"
grep -q "extension module unavailable" "$TMP/bare/err" || fail "not logged: $(tail -5 "$TMP/bare/err")"

t "a module that appears later is loaded by the next request"
cp "$(dirname "$ALLOX_AGENT")/allox-agent-ext.so" "$TMP/bare/bin/allox-agent-ext.so"
call GET /v1/jupyter/info
expect_code 200
jq -e '.success == true and .data.default_kernel == "python3"' "$TMP/body" >/dev/null || fail "info: $(cat "$TMP/body")"
stop_agent

t "a file that is no module gives 503 naming it"
mkdir -p "$TMP/broken/bin"
cp "$ALLOX_AGENT" "$TMP/broken/bin/allox-agent"
echo "not an ELF file" > "$TMP/broken/bin/allox-agent-ext.so"
start_agent "$TMP/broken" "$TMP/broken/bin/allox-agent"
call GET /v1/mcp/servers
expect_503_naming "$TMP/broken/bin/allox-agent-ext.so"
call GET /ping
expect_code 200
stop_agent

t "a shared object that is no extension module gives 503 saying so"
jansson=$(ldd "$ALLOX_AGENT" | awk '$1 ~ /^libjansson\.so/ { print $3 }')
[ -f "$jansson" ] || fail "no libjansson in ldd $ALLOX_AGENT"
cp "$jansson" "$TMP/broken/bin/allox-agent-ext.so"
start_agent "$TMP/broken" "$TMP/broken/bin/allox-agent"
call GET /v1/browser/info
expect_503_naming "not an allox-agent extension module"
call GET /v1/sandbox
expect_code 200
stop_agent

t "no cgroup is left of a sandbox of this test: ended ones, then all once the engine stops"
expect_clean_stop

done_testing
