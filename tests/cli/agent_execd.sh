#!/bin/sh
# allox-agent's execd routes outside a sandbox: the POST /command event
# stream, background commands, interrupts, and the file and directory
# routes. Needs ALLOX_AGENT (the agent) and ALLOX_LISTEN_FD
# (tests/helpers/listen_fd), plus curl, jq and sha256sum.
# ALLOX_TEST_NO_RSS=1 skips the memory check (e.g. under valgrind).
set -u

: "${ALLOX_AGENT:?ALLOX_AGENT must point at the allox-agent binary}"
: "${ALLOX_LISTEN_FD:?ALLOX_LISTEN_FD must point at the listen_fd test helper}"
. "${TESTS_DIR:-tests}/cli/agent_lib.sh"
PID=""
# A marker in the commands we start (as sleep durations), to find any
# that outlive a test.
MARK="4242$$"
cleanup() {
	umount "$TMP/small" 2>/dev/null
	if [ -n "$PID" ]; then
		# Commands run in process groups of their own and would outlive
		# an agent that is not PID 1.
		for g in $(child_pids); do
			kill -KILL "-$g" 2>/dev/null
		done
		# A clean shutdown, so tools such as valgrind can report.
		kill -TERM "$PID" 2>/dev/null
		until_true 100 dead "$PID" || kill -KILL "$PID" 2>/dev/null
		wait "$PID" 2>/dev/null
	fi
}
agent_test_init allox-execd-test
TOKEN=t0k3n-execd-0123456789
T_HDR="X-EXECD-ACCESS-TOKEN: $TOKEN"

fail_context() {
	last_body "last body" 2000
}

# The agent's children (each the leader of a command's process group).
child_pids() {
	for f in /proc/[0-9]*/stat; do
		read -r line 2>/dev/null <"$f" || continue
		set -- ${line##*) }
		[ "${2:-}" = "$PID" ] && { p=${f#/proc/}; echo "${p%/stat}"; }
	done
}

# A process whose command line holds the marker WORD still runs.
running() {
	grep -qs -F "$1" /proc/[0-9]*/cmdline
}

gone() {
	! running "$1"
}

# req METHOD PATH [CURL ARGS...]: sets $code; body in $TMP/body, headers in $TMP/headers.
req() {
	m=$1
	p=$2
	shift 2
	code=$(curl -s -o "$TMP/body" -D "$TMP/headers" -w '%{http_code}' --max-time 30 \
		-H "$T_HDR" -X "$m" "$@" "$URL$p")
}

# run JSON: POST /command; the event stream in $TMP/body.
run() {
	req POST /command -N -H 'Content-Type: application/json' --data-binary "$1"
}

# ev FILTER: FILTER holds for the array of events in $TMP/body.
ev() {
	jq -e -s "$1" "$TMP/body" >/dev/null 2>&1 || fail "events fail: $1"
}

header() {
	tr -d '\r' <"$TMP/headers" | sed -n "s/^$1: //Ip" | head -1
}

# ---------------------------------------------------------------------------

launch_agent "" "$TMP" "$TMP/agent.err" sb-execd
agent_port 30 "$TMP" || { echo "FAIL: the agent did not start" >&2; cat "$TMP/agent.err" >&2; exit 1; }
URL="http://127.0.0.1:$PORT"
agent_ping 30 || { echo "FAIL: no /ping" >&2; exit 1; }

t "stream framing: bare JSON events, init first, one terminal event last"
run '{"command":"echo hello; echo world"}'
expect_code 200
[ "$(header Content-Type)" = "text/event-stream" ] || fail "Content-Type $(header Content-Type)"
# Each event is one JSON object line followed by an empty line.
[ "$(grep -c . "$TMP/body")" = "$(grep -c '^$' "$TMP/body")" ] || fail "events not separated by blank lines"
grep -v '^$' "$TMP/body" | grep -qv '^{.*}$' && fail "a line is not a bare JSON object"
[ "$(tail -c 2 "$TMP/body" | od -An -c | tr -d ' ')" = '\n\n' ] || fail "stream does not end with a blank line"
ev '.[0].type == "init" and (.[0].text | test("^[0-9a-f]{32}$"))'
ev '[.[] | select(.type == "stdout") | .text] == ["hello", "world"]'
ev '[.[] | select(.type == "execution_complete" or .type == "error")] | length == 1'
ev '.[-1].type == "execution_complete" and (.[-1].execution_time | type) == "number"'
ev 'all(.[]; (.timestamp | type) == "number")'

t "output arrives as it is produced"
start=$(now_ms)
curl -s -N --max-time 20 -H "$T_HDR" --data-binary '{"command":"echo a; sleep 2; echo b"}' "$URL/command" |
	while IFS= read -r line; do
		case $line in
		*'"text":"a"'*) now_ms >"$TMP/ta" ;;
		*'"text":"b"'*) now_ms >"$TMP/tb" ;;
		esac
	done
if [ -s "$TMP/ta" ] && [ -s "$TMP/tb" ]; then
	ta=$(cat "$TMP/ta")
	tb=$(cat "$TMP/tb")
	[ $((ta - start)) -lt 1500 ] || fail "a took $((ta - start)) ms"
	[ $((tb - ta)) -ge 1500 ] || fail "b came only $((tb - ta)) ms after a"
else
	fail "missing a or b"
fi

t "exit codes in the terminal event"
for c in 0 1 7 255; do
	run "{\"command\":\"exit $c\"}"
	if [ "$c" = 0 ]; then
		ev '.[-1].type == "execution_complete"'
	else
		ev ".[-1].type == \"error\" and .[-1].error.ename == \"CommandExecError\" and .[-1].error.evalue == \"$c\""
		ev ".[-1].error.traceback == [\"exit status $c\"]"
	fi
done

t "stderr is separate; lines split on \\n, \\r and \\r\\n; partial last line"
run '{"command":"echo out; echo err >&2; printf \"x\\r\\ny\\rz\\n\\nlast\""}'
ev '[.[] | select(.type == "stderr") | .text] == ["err"]'
ev '[.[] | select(.type == "stdout") | .text] == ["out", "x", "y", "z", "", "last"]'

t "bytes that are not UTF-8 still make valid JSON"
run '{"command":"printf \"a\\377b\\000c\\n\""}'
ev '[.[] | select(.type == "stdout") | .text] == ["a\ufffdb\u0000c"]'

t "cwd, envs and the default working directory"
mkdir -p "$TMP/work dir"
run "{\"command\":\"pwd; echo \$FOO-\$BAR\",\"cwd\":\"$TMP/work dir\",\"envs\":{\"FOO\":\"x y\",\"BAR\":\"2\"}}"
ev "[.[] | select(.type == \"stdout\") | .text] == [\"$TMP/work dir\", \"x y-2\"]"
run '{"command":"pwd"}'
ev "[.[] | select(.type == \"stdout\") | .text] == [\"$HOME\"]"

t "bad requests are JSON errors"
run '{"command":"pwd","cwd":"/nonexistent/dir"}'
expect_code 400
jq_body '.code == "INVALID_REQUEST_BODY" and (.message | test("nonexistent"))'
run '{"cwd":"/"}'
expect_code 400
run 'not json'
expect_code 400
run '{"command":"true","timeout":-5}'
expect_code 400

t "timeout kills the process group"
start=$(now_ms)
run "{\"command\":\"sleep 30$MARK & sleep 31$MARK\",\"timeout\":500}"
el=$(($(now_ms) - start))
[ "$el" -lt 5000 ] || fail "took $el ms"
ev '.[-1].type == "error" and .[-1].error.evalue == "-1" and .[-1].error.traceback == ["signal: killed"]'
until_true 30 gone "30$MARK" || fail "a child survived the timeout"

t "keepalive pings while idle"
run '{"command":"sleep 4; echo done"}'
ev 'any(.[]; .type == "ping" and .text == "pong")'
ev '.[-1].type == "execution_complete"'

t "a client that goes away gets its command killed"
curl -s -N --max-time 1 -H "$T_HDR" --data-binary "{\"command\":\"sleep 32$MARK\"}" "$URL/command" >/dev/null
until_true 40 gone "32$MARK" || fail "the command survived its client"

t "background command: status, logs and cursor"
# The command waits for a flag file rather than a fixed time, so a loaded
# machine cannot let it finish before the first logs are read.
flag="$TMP/bg-release"
run '{"command":"echo one; echo two >&2; until [ -e '"$flag"' ]; do sleep 0.05; done; echo three; exit 3","background":true}'
expect_code 200
ev '.[0].type == "init" and .[1].type == "execution_complete" and length == 2'
id=$(jq -r -s '.[0].text' "$TMP/body")
req GET "/command/status/$id"
expect_code 200
jq_body ".id == \"$id\" and .running == true and (.content | test(\"echo one\")) and (.started_at | test(\"Z$\"))"
jq_body 'has("exit_code") | not'
first_logs() {
	req GET "/command/$id/logs"
	[ "$(cat "$TMP/body")" = "one
two" ]
}
until_true 100 first_logs || true
expect_code 200
[ "$(cat "$TMP/body")" = "one
two" ] || fail "logs: $(cat "$TMP/body")"
cursor=$(header EXECD-COMMANDS-TAIL-CURSOR)
[ "$cursor" = 8 ] || fail "cursor '$cursor', expected 8"
touch "$flag"
status_done() {
	req GET "/command/status/$id"
	jq -e '.running == false' "$TMP/body" >/dev/null 2>&1
}
until_true 50 status_done || fail "still running"
jq_body '.exit_code == 3 and .error == "exit status 3" and (.finished_at | test("Z$"))'
req GET "/command/$id/logs?cursor=$cursor"
[ "$(cat "$TMP/body")" = "three" ] || fail "logs after cursor: $(cat "$TMP/body")"
[ "$(header EXECD-COMMANDS-TAIL-CURSOR)" = 14 ] || fail "next cursor $(header EXECD-COMMANDS-TAIL-CURSOR)"
req GET "/command/$id/logs?cursor=14"
[ ! -s "$TMP/body" ] || fail "logs at the end are not empty"
req GET "/command/status/0123456789abcdef0123456789abcdef"
expect_code 404
req GET "/command/0123456789abcdef0123456789abcdef/logs"
expect_code 404

t "foreground commands have a status too; their logs are refused"
run '{"command":"exit 4"}'
id=$(jq -r -s '.[0].text' "$TMP/body")
req GET "/command/status/$id"
jq_body '.running == false and .exit_code == 4'
req GET "/command/$id/logs"
expect_code 400

t "DELETE /command interrupts the process group"
run "{\"command\":\"sleep 33$MARK & sleep 34$MARK; echo after\",\"background\":true}"
id=$(jq -r -s '.[0].text' "$TMP/body")
until_true 30 running "34$MARK" || fail "did not start"
req DELETE "/command?id=$id"
expect_code 200
req GET "/command/status/$id"
jq_body '.running == false and .exit_code == -1 and .error == "signal: terminated"'
until_true 30 gone "33$MARK" || fail "the background child survived"
req DELETE "/command?id=$id"
expect_code 500
req DELETE "/command"
expect_code 400
jq_body '.code == "MISSING_QUERY"'

t "DELETE /command escalates to SIGKILL"
run "{\"command\":\"trap '' TERM; sleep 35$MARK\",\"background\":true}"
id=$(jq -r -s '.[0].text' "$TMP/body")
until_true 30 running "35$MARK" || fail "did not start"
start=$(now_ms)
req DELETE "/command?id=$id"
expect_code 200
el=$(($(now_ms) - start))
[ "$el" -ge 2500 ] && [ "$el" -lt 8000 ] || fail "interrupt took $el ms"
req GET "/command/status/$id"
jq_body '.running == false and .error == "signal: killed"'

t "background timeout"
run "{\"command\":\"sleep 36$MARK\",\"background\":true,\"timeout\":300}"
id=$(jq -r -s '.[0].text' "$TMP/body")
until_true 30 status_done || fail "still running"
jq_body '.exit_code == -1'
until_true 20 gone "36$MARK" || fail "survived"

t "20 parallel commands"
i=0
pids=""
start=$(now_ms)
while [ $i -lt 20 ]; do
	curl -s -N --max-time 20 -H "$T_HDR" -o "$TMP/par$i" \
		--data-binary "{\"command\":\"echo start $i; sleep 1; echo end $i; exit $((i % 3))\"}" "$URL/command" &
	pids="$pids $!"
	i=$((i + 1))
done
# Not a bare wait: the agent is a background job too.
wait $pids
el=$(($(now_ms) - start))
[ "$el" -lt 8000 ] || fail "took $el ms"
i=0
while [ $i -lt 20 ]; do
	jq -e -s "[.[] | select(.type == \"stdout\") | .text] == [\"start $i\", \"end $i\"] and
		(if $((i % 3)) == 0 then .[-1].type == \"execution_complete\" else .[-1].error.evalue == \"$((i % 3))\" end)" \
		"$TMP/par$i" >/dev/null 2>&1 || fail "command $i: $(cat "$TMP/par$i")"
	i=$((i + 1))
done

t "upload 50 MiB (streamed) and download it back"
head -c 52428800 /dev/urandom >"$TMP/big"
req POST /files/upload \
	-F 'metadata={"path":"'"$TMP"'/up/deep/big.bin","mode":640};filename=metadata;type=application/json' \
	-F "file=@$TMP/big;type=application/octet-stream"
expect_code 200
[ "$(stat -c %a "$TMP/up/deep/big.bin" 2>/dev/null)" = 640 ] || fail "mode is not 640"
ls -a "$TMP/up/deep" | grep -q '\.upload$' && fail "a temporary file was left behind"
curl -s --max-time 60 -H "$T_HDR" -o "$TMP/big.down" "$URL/files/download?path=$TMP/up/deep/big.bin"
[ "$(sha256sum <"$TMP/big.down")" = "$(sha256sum <"$TMP/big")" ] || fail "sha256 differs"
# The same, with a chunked request body.
req POST /files/upload -H 'Transfer-Encoding: chunked' \
	-F 'metadata={"path":"'"$TMP"'/up/chunked.bin"};filename=metadata' -F "file=@$TMP/big"
expect_code 200
cmp -s "$TMP/big" "$TMP/up/chunked.bin" || fail "chunked upload differs"
if [ -z "${ALLOX_TEST_NO_RSS:-}" ]; then
	hwm=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$PID/status")
	echo "agent peak RSS: ${hwm} kB"
	[ "${hwm:-99999}" -lt 16384 ] || fail "peak RSS ${hwm} kB, over 16 MiB"
fi
rm -f "$TMP/big" "$TMP/big.down" "$TMP/up/chunked.bin"

t "upload: a disk that fills up mid-file (on the writer thread) is a 500 with the reason, and nothing is left"
mkdir -p "$TMP/small"
if mount -t tmpfs -o size=2m tmpfs "$TMP/small" 2>/dev/null; then
	head -c 6291456 /dev/urandom >"$TMP/six"
	req POST /files/upload \
		-F 'metadata={"path":"'"$TMP"'/small/six.bin"};filename=metadata' -F "file=@$TMP/six"
	expect_code 500
	grep -q "No space left on device" "$TMP/body" || fail "reason: $(cat "$TMP/body")"
	[ -z "$(ls -A "$TMP/small")" ] || fail "left on the full disk: $(ls -A "$TMP/small")"
	# The agent goes on: the next upload (2 files, one past a buffer) works.
	head -c 1500000 /dev/urandom >"$TMP/mid"
	req POST /files/upload \
		-F 'metadata={"path":"'"$TMP"'/up2/mid1"};filename=metadata' -F "file=@$TMP/mid" \
		-F 'metadata={"path":"'"$TMP"'/up2/mid2"};filename=metadata' -F "file=@$TMP/mid"
	expect_code 200
	cmp -s "$TMP/mid" "$TMP/up2/mid1" && cmp -s "$TMP/mid" "$TMP/up2/mid2" || fail "files after the failure differ"
	umount "$TMP/small"
	rm -f "$TMP/six" "$TMP/mid"
else
	echo "# skipped: cannot mount a tmpfs" >&2
fi

t "upload: pairs of parts, errors, empty files"
printf 'first' >"$TMP/f1"
: >"$TMP/f2"
req POST /files/upload \
	-F 'metadata={"path":"'"$TMP"'/up/f1"};filename=metadata' -F "file=@$TMP/f1" \
	-F 'metadata={"path":"'"$TMP"'/up/f2","mode":600};filename=metadata' -F "file=@$TMP/f2"
expect_code 200
[ "$(cat "$TMP/up/f1")" = first ] || fail "f1 content"
[ -f "$TMP/up/f2" ] && [ ! -s "$TMP/up/f2" ] || fail "f2 not an empty file"
req POST /files/upload -F 'metadata={"path":"'"$TMP"'/up/x"};filename=metadata'
expect_code 400
jq_body '.code == "INVALID_FILE_CONTENT"'
req POST /files/upload -F "file=@$TMP/f1"
expect_code 400
req POST /files/upload -F 'metadata=nonsense;filename=metadata' -F "file=@$TMP/f1"
expect_code 400
jq_body '.code == "INVALID_FILE_METADATA"'
req POST /files/upload -H 'Content-Type: application/json' --data-binary '{}'
expect_code 400

t "download: Range, 416, Content-Disposition, missing file"
printf '0123456789' >"$TMP/ten"
req GET "/files/download?path=$TMP/ten" -H 'Range: bytes=2-5'
expect_code 206
[ "$(cat "$TMP/body")" = 2345 ] || fail "range body $(cat "$TMP/body")"
[ "$(header Content-Range)" = "bytes 2-5/10" ] || fail "Content-Range $(header Content-Range)"
req GET "/files/download?path=$TMP/ten" -H 'Range: bytes=-3'
[ "$code" = 206 ] && [ "$(cat "$TMP/body")" = 789 ] || fail "suffix range"
req GET "/files/download?path=$TMP/ten" -H 'Range: bytes=20-30'
expect_code 416
[ "$(header Content-Range)" = "bytes */10" ] || fail "416 Content-Range $(header Content-Range)"
req GET "/files/download?path=$TMP/ten"
expect_code 200
[ "$(header Content-Disposition)" = 'attachment; filename="ten"' ] || fail "disposition $(header Content-Disposition)"
[ "$(header Content-Length)" = 10 ] || fail "length $(header Content-Length)"
req GET "/files/download?path=$TMP/missing"
expect_code 404
jq_body '.code == "FILE_NOT_FOUND"'
req GET "/files/download"
expect_code 400

t "files/info and files/search"
req GET "/files/info?path=$TMP/ten&path=$TMP/up"
expect_code 200
jq_body ".[\"$TMP/ten\"] | .path == \"$TMP/ten\" and .type == \"file\" and .size == 10 and
	(.mode | type) == \"number\" and (.owner | type) == \"string\" and (.group | type) == \"string\" and
	(.modified_at | test(\"Z$\")) and (.created_at | test(\"Z$\"))"
jq_body ".[\"$TMP/up\"].type == \"directory\""
req GET "/files/info?path=$TMP/missing"
expect_code 404
jq_body '.code == "FILE_NOT_FOUND"'
req GET "/files/search?path=$TMP/up&pattern=f*"
expect_code 200
jq_body "[.[].path] | sort == [\"$TMP/up/f1\", \"$TMP/up/f2\"]"
req GET "/files/search?path=$TMP/up"
jq_body 'length == 3 and all(.[]; .type == "file")'
req GET "/files/search?path=$TMP/missing"
expect_code 404

t "directories: create, list (symlinks not followed), delete"
req POST /directories -H 'Content-Type: application/json' \
	--data-binary "{\"$TMP/d/a/b\":{\"mode\":700},\"$TMP/d/c\":{\"mode\":755}}"
expect_code 200
[ "$(stat -c %a "$TMP/d/a/b")" = 700 ] || fail "mode of b"
printf x >"$TMP/d/a/file"
ln -s /etc "$TMP/d/link"
req GET "/directories/list?path=$TMP/d&depth=1"
expect_code 200
jq_body "[.[] | [.path, .type]] == [[\"$TMP/d/a\", \"directory\"], [\"$TMP/d/c\", \"directory\"], [\"$TMP/d/link\", \"symlink\"]]"
req GET "/directories/list?path=$TMP/d&depth=2"
jq_body "[.[].path] == [\"$TMP/d/a\", \"$TMP/d/a/b\", \"$TMP/d/a/file\", \"$TMP/d/c\", \"$TMP/d/link\"]"
req GET "/directories/list?path=$TMP/d/link"
expect_code 400
req GET "/directories/list?path=$TMP/nothere"
expect_code 404
req DELETE "/files?path=$TMP/d/a"
expect_code 500
req DELETE "/files?path=$TMP/d/a/file&path=$TMP/d/none"
expect_code 200
[ ! -e "$TMP/d/a/file" ] || fail "file not deleted"
req DELETE "/directories?path=$TMP/d"
expect_code 200
[ ! -e "$TMP/d" ] || fail "directory not deleted"
[ -d /etc ] || fail "followed the symlink"

t "X-Request-ID comes back on every answer (streams and errors too); none is made up"
req GET /ping -H 'X-Request-ID: rid-ping-1'
expect_code 200
[ "$(header X-Request-ID)" = rid-ping-1 ] || fail "ping: '$(header X-Request-ID)'"
req GET "/files/info?path=$TMP/missing" -H 'X-Request-ID: rid-missing-2'
expect_code 404
[ "$(header X-Request-ID)" = rid-missing-2 ] || fail "404: '$(header X-Request-ID)'"
req POST /command -N -H 'Content-Type: application/json' -H 'X-Request-ID: rid-stream-3' \
	--data-binary '{"command":"echo rid"}'
ev 'any(.type == "stdout" and .text == "rid")'
[ "$(header X-Request-ID)" = rid-stream-3 ] || fail "stream: '$(header X-Request-ID)'"
req GET /ping
[ -z "$(header X-Request-ID)" ] || fail "made up: '$(header X-Request-ID)'"
req GET /ping -H "X-Request-ID: $(printf '%0129d' 0)"
[ -z "$(header X-Request-ID)" ] || fail "an id over 128 bytes came back"

t "no command outlived its test"
until_true 30 gone "$MARK" || fail "a command with the test marker still runs"

summary
