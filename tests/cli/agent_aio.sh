#!/bin/sh
# allox-agent's AIO routes: /v1/shell/{exec,view,wait,kill} and
# /v1/file/{read,write,upload,download,list}. Needs ALLOX_AGENT (the agent)
# and ALLOX_LISTEN_FD (tests/helpers/listen_fd), plus curl, jq and sha256sum.
set -u

: "${ALLOX_AGENT:?ALLOX_AGENT must point at the allox-agent binary}"
: "${ALLOX_LISTEN_FD:?ALLOX_LISTEN_FD must point at the listen_fd test helper}"
. "${TESTS_DIR:-tests}/cli/agent_lib.sh"
PID=""
cleanup() {
	# Commands the tests leave behind write their pids here.
	for f in "$TMP"/pids/*; do
		[ -f "$f" ] && kill -KILL "$(cat "$f")" 2>/dev/null
	done
	[ -n "$PID" ] && kill -KILL "$PID" 2>/dev/null
	umount "$TMP/small" 2>/dev/null
}
agent_test_init allox-agent-aio
mkdir -p "$TMP/pids" "$TMP/wd"
unset WORKSPACE
TOKEN=t0k3n-aio-0123456789abcdef
# Under valgrind every request is slower; scale the bounds, not the checks.
SLOW=${ALLOX_TEST_SLOW:-1}
POLL_SCALE=$SLOW

fail_context() {
	last_body "last body (first 2000 bytes)" 2000
}

# post PATH JSON: POST a JSON body; sets $code and $ms, body in $TMP/body.
post() {
	t0=$(now_ms)
	code=$(printf '%s' "$2" | curl -s -o "$TMP/body" -D "$TMP/headers" -w '%{http_code}' \
		--max-time $((30 * SLOW)) -H "X-EXECD-ACCESS-TOKEN: $TOKEN" \
		-H 'Content-Type: application/json' --data-binary @- "http://127.0.0.1:$PORT$1")
	ms=$(($(now_ms) - t0))
}

# get PATH [CURL-ARGS...]: GET into $TMP/body; sets $code.
get() {
	p=$1
	shift
	code=$(curl -s -o "$TMP/body" -D "$TMP/headers" -w '%{http_code}' --max-time $((30 * SLOW)) \
		-H "X-EXECD-ACCESS-TOKEN: $TOKEN" "$@" "http://127.0.0.1:$PORT$p")
}

# sh_exec COMMAND [JQ-ASSIGNMENTS]: POST /v1/shell/exec with {command} plus extra fields.
sh_exec() {
	post /v1/shell/exec "$(jq -nc --arg c "$1" "{command: \$c} ${2:+| $2}")"
}

faster_than() {
	[ "$ms" -lt $(($1 * SLOW)) ] || fail "took $ms ms, expected under $(($1 * SLOW))"
}

session() {
	jq -r .data.session_id "$TMP/body"
}

q() {
	jq -nr --arg s "$1" '$s'
}

# $ALLOX_AGENT_WRAP may put a command such as valgrind in front.
start_agent() {
	launch_agent "${ALLOX_AGENT_WRAP:-}" "$TMP" "$TMP/agent.err" sb-aio
	agent_port 50 "$TMP" || { echo "agent did not start" >&2; cat "$TMP/agent.err" >&2; exit 1; }
	agent_ping 100 --max-time 2 || { echo "agent not serving" >&2; exit 1; }
}

start_agent

# --------------------------------------------------------------- shell exec

t "exec: exit codes and the result shape"
for want in 0 1 7 255; do
	sh_exec "exit $want"
	expect_code 200
	jq_body '.success == true and .hint == null and (.message | type) == "string"'
	jq_body '.data | keys_unsorted == ["session_id","command","status","output","exit_code","console"]'
	jq_body --argjson c "$want" '.data.status == "completed" and .data.exit_code == $c and .data.command == "exit \($c)"'
	jq_body '.data.session_id | test("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")'
done
sh_exec 'true'
jq_body '.data.output == "" and .data.exit_code == 0'

t "exec: a signal gives 128+N, as \$? would"
sh_exec 'kill -TERM $$'
jq_body '.data.status == "completed" and .data.exit_code == 143'

t "exec: stdout and stderr in one stream, in order"
sh_exec 'echo out1; echo err1 >&2; echo out2; printf "no newline" >&2'
jq_body '.data.output == "out1\nerr1\nout2\nno newline" and .data.exit_code == 0'

t "exec: exec_dir, default directory, strict"
sh_exec 'pwd' '.exec_dir = "'"$TMP/wd"'"'
jq_body --arg d "$TMP/wd" '.data.output == "\($d)\n"'
sh_exec 'pwd'
jq_body --arg d "$HOME" '.data.output == "\($d)\n"'
sh_exec 'pwd' '.exec_dir = "'"$TMP/missing"'"'
expect_code 200
jq_body --arg d "$HOME" '.data.output == "\($d)\n"'
sh_exec 'pwd' '.exec_dir = "'"$TMP/missing"'" | .strict = true'
expect_code 400
jq_body '.success == false and (.message | test("does not exist"))'
sh_exec 'pwd' '.exec_dir = "relative" | .strict = true'
expect_code 400

t "exec: an explicit session id is kept, with its directory"
sh_exec 'pwd' '.id = "my-session" | .exec_dir = "'"$TMP/wd"'"'
jq_body '.data.session_id == "my-session"'
sh_exec 'pwd' '.id = "my-session"'
jq_body --arg d "$TMP/wd" '.data.session_id == "my-session" and .data.output == "\($d)\n"'
sh_exec 'pwd' '.id = "my-session" | .exec_dir = "/"'
jq_body '.data.output == "/\n"'

t "exec: timeout answers running, the command goes on"
sh_exec "echo \$\$ >$TMP/pids/soft; echo early; sleep 2; echo late" '.timeout = 0.5'
expect_code 200
jq_body '.data.status == "running" and .data.exit_code == null and .data.output == "early\n"'
faster_than 1800
SID=$(session)
alive "$(cat "$TMP/pids/soft")" || fail "command did not keep running"
post /v1/shell/wait "{\"id\":\"$SID\",\"seconds\":10}"
expect_code 200
jq_body '.data == {"status":"completed"}'
post /v1/shell/view "{\"id\":\"$SID\"}"
jq_body --arg s "$SID" '.data.session_id == $s and .data.status == "completed" and .data.exit_code == 0'
jq_body '.data.output == "early\nlate\n"'

t "exec: hard_timeout kills the whole process group"
sh_exec "echo \$\$ >$TMP/pids/hard; sleep 30 & echo \$! >$TMP/pids/hard-child; echo start; wait" '.hard_timeout = 1'
expect_code 200
jq_body '.data.status == "hard_timeout" and .data.exit_code == -1 and .data.output == "start\n"'
faster_than 4000
[ "$ms" -ge 900 ] || fail "answered after $ms ms, before the hard timeout"
until_true 20 dead "$(cat "$TMP/pids/hard")" || fail "shell survived"
until_true 20 dead "$(cat "$TMP/pids/hard-child")" || fail "child survived"

t "exec: hard_timeout still applies after a running answer"
sh_exec "echo \$\$ >$TMP/pids/hard2; sleep 30" '.timeout = 0.3 | .hard_timeout = 1.5'
jq_body '.data.status == "running"'
SID=$(session)
post /v1/shell/wait "{\"id\":\"$SID\",\"seconds\":10}"
jq_body '.data.status == "hard_timeout"'
until_true 20 dead "$(cat "$TMP/pids/hard2")" || fail "command survived its hard timeout"
post /v1/shell/view "{\"id\":\"$SID\"}"
jq_body '.data.status == "hard_timeout" and .data.exit_code == -1'

t "exec: async_mode answers at once"
rm -f "$TMP/async-out"
sh_exec "sleep 1; echo async >$TMP/async-out; echo done" '.async_mode = true'
jq_body '.data.status == "running" and .data.exit_code == null'
faster_than 1500
SID=$(session)
until_true 50 test -s "$TMP/async-out" || fail "async command did not run"
post /v1/shell/wait "{\"id\":\"$SID\",\"seconds\":10}"
jq_body '.data.status == "completed"'
post /v1/shell/view "{\"id\":\"$SID\"}"
jq_body '.data.output == "done\n" and .data.exit_code == 0'

t "exec: no_change_timeout, then kill"
sh_exec "echo \$\$ >$TMP/pids/quiet; echo a; sleep 30" '.no_change_timeout = 1'
jq_body '.data.status == "no_change_timeout" and .data.output == "a\n" and .data.exit_code == null'
faster_than 3000
SID=$(session)
alive "$(cat "$TMP/pids/quiet")" || fail "command stopped"
post /v1/shell/kill "{\"id\":\"$SID\"}"
expect_code 200
jq_body '.data == {"status":"terminated","exit_code":null,"returncode":null}'
until_true 20 dead "$(cat "$TMP/pids/quiet")" || fail "kill did not stop the command"
post /v1/shell/view "{\"id\":\"$SID\"}"
jq_body '.data.status == "terminated" and .data.exit_code == -1'
post /v1/shell/kill "{\"id\":\"$SID\"}"
jq_body '.data.status == "terminated" and .data.exit_code == -1'

t "exec: a background job holding the output pipe does not hold the answer"
sh_exec "sleep 30 & echo \$! >$TMP/pids/bg; echo fg"
jq_body '.data.status == "completed" and .data.output == "fg\n" and .data.exit_code == 0'
faster_than 2000
alive "$(cat "$TMP/pids/bg")" || fail "background job was killed"

t "exec: output is truncated to 30000 characters unless truncate is false"
sh_exec 'head -c 1000000 /dev/zero | tr "\0" a; echo END'
jq_body '.data.exit_code == 0 and (.data.output | length) < 30200'
jq_body '.data.output | startswith("aaaa") and endswith("aaaaEND\n") and test("\n\\.\\.\\. \\[970004 bytes of output truncated\\] \\.\\.\\.\n")'
sh_exec 'head -c 1000000 /dev/zero | tr "\0" a' '.truncate = false'
jq_body '.data.output | length == 1000000 and (test("[^a]") | not)'

t "exec: a huge output neither blocks nor grows without bound"
sh_exec 'head -c 30000000 /dev/zero | tr "\0" b; echo TAIL' '.truncate = false'
expect_code 200
jq_body '.data.exit_code == 0 and (.data.output | length) > 10000000 and (.data.output | length) < 10500000'
jq_body '.data.output | endswith("bTAIL\n") and test("bytes of output truncated")'

t "exec: output that is not UTF-8 still makes valid JSON"
sh_exec 'printf "a\377b\303"'
jq_body '.data.output == "a\ufffdb\ufffd"'

t "exec and shell routes: request validation"
post /v1/shell/exec '{}'
expect_code 422
jq_body '.success == false and .detail[0].loc == ["body","command"] and .detail[0].type == "missing"'
post /v1/shell/exec '{"command": 5}'
expect_code 422
jq_body '.detail[0].type == "string_type"'
post /v1/shell/exec 'not json'
expect_code 422
post /v1/shell/exec '{"command":"true","timeout":"soon"}'
expect_code 422
post /v1/shell/view '{"id":"no-such-session"}'
expect_code 404
jq_body '.success == false'
post /v1/shell/kill '{}'
expect_code 422

# -------------------------------------------------------------------- files

F="$TMP/files"

t "file: utf-8 write and read round trip, parents created"
post /v1/file/write "$(jq -nc --arg f "$F/new/dir/hello.txt" '{file: $f, content: "héllo ✓\nline 2\n"}')"
expect_code 200
jq_body --arg f "$F/new/dir/hello.txt" '.success == true and .data == {"file": $f, "bytes_written": 18}'
[ "$(cat "$F/new/dir/hello.txt")" = "$(printf 'héllo ✓\nline 2')" ] || fail "file content differs"
post /v1/file/read "$(jq -nc --arg f "$F/new/dir/hello.txt" '{file: $f}')"
expect_code 200
jq_body --arg f "$F/new/dir/hello.txt" '.success == true and .data == {"content": "héllo ✓\nline 2\n", "file": $f}'

t "file: append and newlines"
post /v1/file/write "$(jq -nc --arg f "$F/app.txt" '{file: $f, content: "a"}')"
post /v1/file/write "$(jq -nc --arg f "$F/app.txt" '{file: $f, content: "b", append: true, leading_newline: true, trailing_newline: true}')"
jq_body '.data.bytes_written == 3'
[ "$(od -An -c "$F/app.txt" | tr -d ' ')" = 'a\nb\n' ] || fail "append gave $(od -An -c "$F/app.txt")"

t "file: line ranges"
printf 'l0\nl1\nl2\nl3' >"$F/lines.txt"
post /v1/file/read "$(jq -nc --arg f "$F/lines.txt" '{file: $f, start_line: 1, end_line: 3}')"
jq_body '.data.content == "l1\nl2\n"'
post /v1/file/read "$(jq -nc --arg f "$F/lines.txt" '{file: $f, start_line: -1}')"
jq_body '.data.content == "l3"'
post /v1/file/read "$(jq -nc --arg f "$F/lines.txt" '{file: $f, start_line: 2, end_line: 99}')"
jq_body '.data.content == "l2\nl3"'

t "file: binary via base64 write, download and raw"
head -c 4096 /dev/urandom >"$TMP/bin.src"
printf '\000\001\377' >>"$TMP/bin.src"
base64 -w0 "$TMP/bin.src" >"$TMP/bin.b64"
jq -nc --arg f "$F/bin/blob" --rawfile c "$TMP/bin.b64" '{file: $f, content: $c, encoding: "base64"}' >"$TMP/req.json"
post /v1/file/write "$(cat "$TMP/req.json")"
jq_body '.success == true and .data.bytes_written == 4099'
cmp -s "$F/bin/blob" "$TMP/bin.src" || fail "base64 write differs"
get "/v1/file/download?path=$F/bin/blob"
expect_code 200
cmp -s "$TMP/body" "$TMP/bin.src" || fail "download differs"
grep -qi '^content-type: application/octet-stream' "$TMP/headers" || fail "content type"
grep -qi '^content-disposition: attachment; filename="blob"' "$TMP/headers" || fail "content disposition"
post /v1/file/read "$(jq -nc --arg f "$F/bin/blob" '{file: $f}')"
expect_code 200
jq_body '.success == false and .data.error_type == "decode_error" and .data.operation == "read"'
post /v1/file/write "$(jq -nc --arg f "$F/raw" '{file: $f, content: "\u0000A\u00ff", encoding: "raw"}')"
jq_body '.data.bytes_written == 3'
[ "$(od -An -tx1 "$F/raw" | tr -d ' ')" = 0041ff ] || fail "raw write gave $(od -An -tx1 "$F/raw")"
post /v1/file/write "$(jq -nc --arg f "$F/bad" '{file: $f, content: "not*base64", encoding: "base64"}')"
jq_body '.success == false and .data.error_type == "decode_error"'
[ ! -e "$F/bad" ] || fail "bad base64 created a file"
post /v1/file/write "$(jq -nc --arg f "$F/bad" '{file: $f, content: "x", encoding: "utf-16"}')"
expect_code 422

t "file: errors are FileOperationError data"
post /v1/file/read "$(jq -nc --arg f "$F/missing.txt" '{file: $f}')"
expect_code 200
jq_body --arg f "$F/missing.txt" '.success == false and (.message | test("No such file"))
	and .data.path == $f and .data.error_type == "not_found" and .data.errno == 2
	and .data.errno_name == "ENOENT" and .data.exception_type == "FileNotFoundError" and .data.retryable == false'
jq_body '.data | keys_unsorted == ["path","operation","message","error_type","retryable","errno","errno_name","exception_type"]'
post /v1/file/read "$(jq -nc --arg f "$F" '{file: $f}')"
jq_body '.success == false and .data.error_type == "invalid_target" and .data.errno_name == "EISDIR"'
post /v1/file/read '{"file":"relative.txt"}'
jq_body '.success == false and .data.error_type == "invalid_path"'
post /v1/file/write "$(jq -nc --arg f "$F/new/dir/hello.txt/below" '{file: $f, content: "x"}')"
jq_body '.success == false and .data.operation == "write" and .data.errno_name == "ENOTDIR"'
post /v1/file/read '{}'
expect_code 422
jq_body '.detail[0].loc == ["body","file"]'
post /v1/file/read "$(jq -nc --arg f "$F/lines.txt" '{file: ($f + "\u0000x")}')"
expect_code 422
post /v1/file/write "$(jq -nc --arg f "$F/nul" '{file: $f, content: "a\u0000b"}')"
jq_body '.success == true and .data.bytes_written == 3'
[ "$(od -An -tx1 "$F/nul" | tr -d ' ')" = 610062 ] || fail "NUL in utf-8 content"

t "file: 20 MiB upload and download keep every byte"
head -c 20971520 /dev/urandom >"$TMP/big.src"
want=$(sha256sum <"$TMP/big.src" | cut -d' ' -f1)
code=$(curl -s -o "$TMP/body" -w '%{http_code}' --max-time $((60 * SLOW)) -H "X-EXECD-ACCESS-TOKEN: $TOKEN" \
	-F "file=@$TMP/big.src" -F "path=$F/up/big.bin" "http://127.0.0.1:$PORT/v1/file/upload")
expect_code 200
jq_body --arg f "$F/up/big.bin" '.success == true and .data == {"file_path": $f, "file_size": 20971520, "success": true}'
[ "$(sha256sum <"$F/up/big.bin" | cut -d' ' -f1)" = "$want" ] || fail "uploaded file differs"
got=$(curl -s --max-time $((60 * SLOW)) -H "X-EXECD-ACCESS-TOKEN: $TOKEN" \
	"http://127.0.0.1:$PORT/v1/file/download?path=$F/up/big.bin" | sha256sum | cut -d' ' -f1)
[ "$got" = "$want" ] || fail "downloaded file differs"
got=$(curl -s --max-time $((60 * SLOW)) -H "X-EXECD-ACCESS-TOKEN: $TOKEN" \
	"http://127.0.0.1:$PORT/v1/file/download?path=$F/up/big.bin&change_policy=abort" | sha256sum | cut -d' ' -f1)
[ "$got" = "$want" ] || fail "download with change_policy=abort differs"
ls -a "$F/up" "$HOME" | grep -q 'allox-upload' && fail "staging file left behind"

t "file: a disk that fills up mid-upload (on the writer thread) is reported, and nothing is left"
mkdir -p "$TMP/small"
if mount -t tmpfs -o size=2m tmpfs "$TMP/small" 2>/dev/null; then
	head -c 6291456 /dev/urandom >"$TMP/six"
	printf 'old content\n' >"$TMP/small/kept.txt"
	# The path first: written there as it arrives, on the writer thread.
	code=$(curl -s -o "$TMP/body" -w '%{http_code}' --max-time $((60 * SLOW)) -H "X-EXECD-ACCESS-TOKEN: $TOKEN" \
		-F "path=$TMP/small/six.bin" -F "file=@$TMP/six" "http://127.0.0.1:$PORT/v1/file/upload")
	jq_body '.success == false and .data.errno_name == "ENOSPC"'
	[ "$(ls -A "$TMP/small")" = kept.txt ] || fail "left on the full disk: $(ls -A "$TMP/small")"
	# The path last: staged in the workspace, then copied across to the
	# full disk, which fails; an existing file there is not truncated.
	code=$(curl -s -o "$TMP/body" -w '%{http_code}' --max-time $((60 * SLOW)) -H "X-EXECD-ACCESS-TOKEN: $TOKEN" \
		-F "file=@$TMP/six" -F "path=$TMP/small/kept.txt" "http://127.0.0.1:$PORT/v1/file/upload")
	jq_body '.success == false and .data.errno_name == "ENOSPC"'
	[ "$(ls -A "$TMP/small")" = kept.txt ] || fail "left on the full disk: $(ls -A "$TMP/small")"
	[ "$(cat "$TMP/small/kept.txt")" = "old content" ] || fail "the existing file was changed: $(head -c 100 "$TMP/small/kept.txt")"
	ls -a "$HOME" | grep -q 'allox-upload' && fail "staging file left behind"
	umount "$TMP/small"
	rm -f "$TMP/six"
else
	echo "# skipped: cannot mount a tmpfs" >&2
fi

t "file: upload with path first, into a directory, and without path"
printf 'one' >"$TMP/one.txt"
code=$(curl -s -o "$TMP/body" -w '%{http_code}' --max-time 10 -H "X-EXECD-ACCESS-TOKEN: $TOKEN" \
	-F "path=$F/up/first.txt" -F "file=@$TMP/one.txt" "http://127.0.0.1:$PORT/v1/file/upload")
jq_body --arg f "$F/up/first.txt" '.data.file_path == $f and .data.file_size == 3'
[ "$(cat "$F/up/first.txt")" = one ] || fail "path-first upload"
code=$(curl -s -o "$TMP/body" -w '%{http_code}' --max-time 10 -H "X-EXECD-ACCESS-TOKEN: $TOKEN" \
	-F "file=@$TMP/one.txt" -F "path=$F/up/" "http://127.0.0.1:$PORT/v1/file/upload")
jq_body --arg f "$F/up/one.txt" '.data.file_path == $f'
code=$(curl -s -o "$TMP/body" -w '%{http_code}' --max-time 10 -H "X-EXECD-ACCESS-TOKEN: $TOKEN" \
	-F "file=@$TMP/one.txt" "http://127.0.0.1:$PORT/v1/file/upload")
jq_body --arg f "$HOME/one.txt" '.data.file_path == $f'
[ "$(cat "$HOME/one.txt")" = one ] || fail "upload without path"
: >"$TMP/empty"
code=$(curl -s -o "$TMP/body" -w '%{http_code}' --max-time 10 -H "X-EXECD-ACCESS-TOKEN: $TOKEN" \
	-F "file=@$TMP/empty" -F "path=$F/up/empty" "http://127.0.0.1:$PORT/v1/file/upload")
jq_body '.data.file_size == 0'
[ -f "$F/up/empty" ] && [ ! -s "$F/up/empty" ] || fail "empty upload"

t "file: upload errors"
code=$(curl -s -o "$TMP/body" -w '%{http_code}' --max-time 10 -H "X-EXECD-ACCESS-TOKEN: $TOKEN" \
	-F "path=$F/up/x" "http://127.0.0.1:$PORT/v1/file/upload")
expect_code 422
jq_body '.detail[0].loc == ["body","file"]'
post /v1/file/upload '{"file":"x"}'
expect_code 422
code=$(curl -s -o "$TMP/body" -w '%{http_code}' --max-time 10 -H "X-EXECD-ACCESS-TOKEN: $TOKEN" \
	-F "file=@$TMP/one.txt" -F "path=$F/up/first.txt/below" "http://127.0.0.1:$PORT/v1/file/upload")
expect_code 200
jq_body '.success == false and .data.operation == "upload" and .data.errno_name == "ENOTDIR"'

t "file: download ranges and errors"
get "/v1/file/download?path=$F/lines.txt" -H 'Range: bytes=3-5'
expect_code 206
printf 'l1\n' | cmp -s - "$TMP/body" || fail "range body: $(cat "$TMP/body")"
grep -qi '^content-range: bytes 3-5/11' "$TMP/headers" || fail "content-range"
get "/v1/file/download?path=$F/lines.txt" -H 'Range: bytes=-2'
[ "$(cat "$TMP/body")" = l3 ] || fail "suffix range"
get "/v1/file/download?path=$F/lines.txt" -H 'Range: bytes=50-'
expect_code 416
get "/v1/file/download?path=$F/nope"
expect_code 404
jq_body '.success == false and .data.error_type == "not_found"'
get "/v1/file/download?path=$F"
expect_code 400
get "/v1/file/download"
expect_code 422
jq_body '.detail[0].loc == ["query","path"]'
get "/v1/file/download?path=$F/lines.txt&change_policy=sometimes"
expect_code 422

t "file: list"
L="$TMP/list"
mkdir -p "$L/sub/deeper" "$L/.hid"
printf 12345 >"$L/b.py"
printf 1 >"$L/a.txt"
printf 123 >"$L/sub/c.py"
printf x >"$L/sub/deeper/d.md"
printf x >"$L/.dot"
ln -s sub "$L/link"
post /v1/file/list "$(jq -nc --arg p "$L" '{path: $p}')"
expect_code 200
jq_body --arg p "$L" '.success == true and .data.path == $p and .data.total_count == 6
	and .data.directory_count == 3 and .data.file_count == 3 and .data.truncated == false'
jq_body '[.data.files[].name] == [".dot",".hid","a.txt","b.py","link","sub"]'
jq_body --arg p "$L" '.data.files[3] == {"name":"b.py","path":"\($p)/b.py","is_directory":false,"size":5,
	"modified_time":.data.files[3].modified_time,"permissions":null,"extension":".py"}'
jq_body '.data.files[3].modified_time | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}")'
jq_body '(.data.files[] | select(.name == "link") | .is_directory) == true'
post /v1/file/list "$(jq -nc --arg p "$L" '{path: $p, recursive: true, show_hidden: false}')"
jq_body '[.data.files[].name] == ["a.txt","b.py","c.py","d.md","deeper","link","sub"]'
post /v1/file/list "$(jq -nc --arg p "$L" '{path: $p, recursive: true, max_depth: 1, show_hidden: false}')"
jq_body '[.data.files[].name] == ["a.txt","b.py","link","sub"]'
post /v1/file/list "$(jq -nc --arg p "$L" '{path: $p, recursive: true, file_types: [".py"], show_hidden: false}')"
jq_body '[.data.files[] | select(.is_directory | not) | .name] == ["b.py","c.py"]'
post /v1/file/list "$(jq -nc --arg p "$L" '{path: $p, sort_by: "size", sort_desc: true, show_hidden: false, include_permissions: true}')"
jq_body '[.data.files[] | select(.is_directory | not) | .name] == ["b.py","a.txt"]'
jq_body '.data.files[0].permissions | test("^[0-7]{3}$")'
post /v1/file/list "$(jq -nc --arg p "$L/nope" '{path: $p}')"
jq_body '.success == false and .data.error_type == "not_found" and .data.operation == "list"'
post /v1/file/list "$(jq -nc --arg p "$L/a.txt" '{path: $p}')"
jq_body '.success == false and .data.errno_name == "ENOTDIR"'
post /v1/file/list "$(jq -nc --arg p "$L" '{path: $p, sort_by: "colour"}')"
expect_code 422

t "the agent is still healthy and has no zombie children"
get /ping
expect_code 200
zombies=0
for f in /proc/[0-9]*/stat; do
	read -r line 2>/dev/null <"$f" || continue
	set -- ${line##*) }
	[ "${2:-}" = "$PID" ] && [ "$1" = Z ] && zombies=$((zombies + 1))
done
[ "$zombies" -eq 0 ] || fail "$zombies zombie children"

kill -TERM "$PID" 2>/dev/null
until_true 50 dead "$PID" || echo "agent did not stop on SIGTERM" >&2
wait "$PID" 2>/dev/null
PID=""

summary
