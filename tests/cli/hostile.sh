#!/bin/sh
# Hostile input against a real local engine: remote trees with
# symlinks, odd and escaping names, 10,000 files; local symlinks on upload; a
# 100 MB line without a newline; invalid UTF-8 and terminal escapes in output
# and names; malformed multipart bodies sent straight to the agent.
. "${TESTS_DIR:-tests}/cli/lib.sh"
. "${TESTS_DIR:-tests}/cli/engine_lib.sh"

TESTS_ABS=$(cd "${TESTS_DIR:-tests}" && pwd)
W="$TMP/work"
mkdir -p "$W"
cd "$W" || exit 1

# No byte of the C0 controls (ESC, BEL, CR, ...) but newline in FILE.
no_controls() {
	! od -An -v -tx1 "$1" | tr ' ' '\n' | grep -qE '^(0[0-9b-f]|1[0-9a-f]|7f)$'
}
# Does FILE hold byte HEX (two lowercase hex digits)?
has_byte() {
	od -An -v -tx1 "$1" | tr ' ' '\n' | grep -qx "$2"
}

run allox sandbox create -o json
ID=$(jq -r .id "$TMP/out")
[ -n "$ID" ] && [ "$ID" != null ] || { cat "$TMP/err" >&2; echo "cannot create a sandbox" >&2; exit 1; }
LAYER="$STATE/$ID/writable/layer/top/home/gem"

# The hostile tree, made inside the sandbox: names with newlines, escape
# sequences (OSC title, clear screen), dots; a name that is not UTF-8.
# shellcheck disable=SC2016 # expanded by the sandbox's shell
mk_tree='set -e; d=/home/gem/evil; mkdir -p "$d/sub"
printf nl > "$d/$(printf "new\nline")"
printf osc > "$d/$(printf "title\033]0;x\007")"
printf cls > "$d/$(printf "clear\033[2J")"
printf dots > "$d/..."; printf dd > "$d/..x"; printf ab > "$d/a..b"
printf in > "$d/sub/inner"
mkdir -p /home/gem/latin1; printf bad > "/home/gem/latin1/$(printf "bad\377name")"'
run allox run -- sh -c "$mk_tree"
[ "$rc" -eq 0 ] || { cat "$TMP/err" >&2; echo "cannot make the hostile tree" >&2; exit 1; }

t "odd names download verbatim, inside the target"
run allox file download /home/gem/evil "$W/evil" -r -o json
expect_rc 0
jq -e '.files == 7 and .directories == 2' "$TMP/out" >/dev/null || fail "counts"
[ "$(cat "$W/evil/$(printf 'new\nline')")" = nl ] || fail "newline name"
[ "$(cat "$W/evil/$(printf 'title\033]0;x\007')")" = osc ] || fail "OSC name"
[ "$(cat "$W/evil/$(printf 'clear\033[2J')")" = cls ] || fail "CSI name"
[ "$(cat "$W/evil/...")" = dots ] && [ "$(cat "$W/evil/..x")" = dd ] && [ "$(cat "$W/evil/a..b")" = ab ] || fail "dot names"
[ "$(cat "$W/evil/sub/inner")" = in ] || fail "sub/inner"
# Nothing landed beside the target.
[ "$(ls -A "$W")" = evil ] || fail "written outside the target: $(ls -A "$W")"

t "file ls: the table shows hostile names harmlessly, json escapes them, raw keeps the bytes"
run allox file ls /home/gem/evil
expect_rc 0
no_controls "$TMP/out" || fail "control bytes on stdout"
expect_out_has "title ]0;x"
expect_out_has "clear [2J"
expect_out_has "new line"
run allox file ls /home/gem/evil -o json
expect_rc 0
no_controls "$TMP/out" || fail "raw control bytes in json"
jq -e '[.[].name] == ["...", "..x", "a..b", "clear\u001b[2J", "new\nline", "sub", "title\u001b]0;x\u0007"]' "$TMP/out" >/dev/null ||
	fail "json names"
jq -e '.[] | select(.name == "sub") | .type == "directory" and .path == "/home/gem/evil/sub"' "$TMP/out" >/dev/null ||
	fail "json sub entry"
run allox file ls /home/gem/evil -o raw
expect_rc 0
has_byte "$TMP/out" 1b && has_byte "$TMP/out" 07 || fail "raw lost the escape bytes"
grep -qF "$(printf 'title\033]0;x\007')" "$TMP/out" || fail "raw name not verbatim"
[ "$(wc -l < "$TMP/out")" -eq 7 ] || fail "raw is not one line per entry"

t "a name that is not UTF-8 cannot cross execd's JSON: refused, nothing written"
# execd lists names as JSON strings (the agent writes U+FFFD, as Go's
# encoder does), so the name asked for does not exist: one clear line.
run allox file download /home/gem/latin1 "$W/latin1" -r
expect_rc 1
expect_err_has "FILE_NOT_FOUND"
[ "$(wc -l < "$TMP/err")" -eq 1 ] || fail "not one line"
[ ! -e "$W/latin1" ] || fail "target created"
[ "$(ls -A "$W")" = evil ] || fail "written outside the target: $(ls -A "$W")"

t "the download's table output carries no control byte"
run allox file download /home/gem/evil "$W/evil2" -r
expect_rc 0
no_controls "$TMP/out" || fail "control bytes on stdout"

t "symlinks out of the tree (absolute, relative ..) are refused, nothing written"
run allox run -- sh -c 'mkdir -p /home/gem/esc/a && echo x > /home/gem/esc/a/f && ln -s /etc/passwd /home/gem/esc/a/abs &&
ln -s ../../../../etc /home/gem/esc/rel'
run allox file download /home/gem/esc "$W/esc" -r
expect_rc 1
expect_err_has "Symbolic links are not supported"
[ ! -e "$W/esc" ] || fail "target created"
[ -z "$(find "$W" -name passwd)" ] || fail "passwd copied"
run allox file download /home/gem/esc/rel "$W/rel"
expect_rc 1
[ ! -e "$W/rel" ] || fail "symlink target downloaded"

t "an error naming a hostile remote file is one line without escapes"
run allox file download "/home/gem/evil/$(printf 'gone\033]0;x\007\033[2J')" "$W/gone"
expect_rc 1
[ "$(wc -l < "$TMP/err")" -le 2 ] || fail "more than two lines"
[ ! -e "$W/gone" ] || fail "target created"
no_controls "$TMP/err" || fail "control bytes on stderr"

t "a hostile execd listing entries outside the tree: each refused, nothing written"
# A fake lifecycle + execd server (every sandbox's endpoint is itself) whose
# listings name ../.., absolute, sibling-prefix, symlink, empty and NUL paths.
python3 "$TESTS_ABS/cli/hostile_server.py" "$TMP/fake.port" &
FAKE_PID=$!
trap 'kill "$FAKE_PID" 2>/dev/null; stop_engine; rm -rf "$TMP"' EXIT
wait_until 20 test -s "$TMP/fake.port" || fail "the fake server did not start"
FAKE=127.0.0.1:$(cat "$TMP/fake.port")
U=3fa85f64-5717-4562-b3fc-2c963f66afa6
mkdir -p "$W/fake"
for r in dotdot abs sibling dirup link empty nul; do
	run allox --domain "$FAKE" file download "$U" "/$r" "$W/fake/$r" -r
	[ "$rc" -eq 1 ] || fail "/$r: exit status $rc"
	[ "$(wc -l < "$TMP/err")" -eq 1 ] || fail "/$r: not one line"
done
[ -z "$(ls -A "$W/fake")" ] || fail "written: $(ls -A "$W/fake")"
[ -z "$(find "$TMP" -name escaped)" ] || fail "escaped file written"
kill "$FAKE_PID" 2>/dev/null
trap 'stop_engine; rm -rf "$TMP"' EXIT

t "10,000 files download completely"
run allox run -- sh -c 'mkdir -p /home/gem/many && cd /home/gem/many && i=0; while [ $i -lt 100 ]; do mkdir d$i; j=0;
while [ $j -lt 100 ]; do printf "%s" "$i.$j" > d$i/f$j; j=$((j+1)); done; i=$((i+1)); done'
expect_rc 0
run allox file download /home/gem/many "$W/many" -r -o json
expect_rc 0
jq -e '.files == 10000 and .directories == 101' "$TMP/out" >/dev/null || fail "counts"
[ "$(find "$W/many" -type f | wc -l)" -eq 10000 ] || fail "$(find "$W/many" -type f | wc -l) files on disk"
[ "$(cat "$W/many/d42/f17")" = 42.17 ] && [ "$(cat "$W/many/d99/f99")" = 99.99 ] || fail "content"

t "a local symlink in an uploaded tree is refused; --follow-symlinks uploads its target"
mkdir -p "$W/up/sub"
printf mine > "$W/up/sub/f"
ln -s /etc/passwd "$W/up/sub/pw"
run allox file upload "$W/up" /home/gem/up -r
expect_rc 1
expect_err_has "pw"
[ ! -e "$LAYER/up/sub/pw" ] || fail "symlink uploaded"
run allox file upload "$W/up" /home/gem/up2 -r --follow-symlinks
expect_rc 0
[ -f "$LAYER/up2/sub/pw" ] && [ ! -L "$LAYER/up2/sub/pw" ] || fail "followed symlink not a file"
cmp -s /etc/passwd "$LAYER/up2/sub/pw" || fail "followed content differs"

t "a 100 MB line without a newline streams in constant memory, byte-exact"
line='head -c 100000000 /dev/zero | tr "\0" a'
if [ -z "${ALLOX_TEST_NO_RSS:-}" ] && /usr/bin/time -f %M true >/dev/null 2>&1; then
	/usr/bin/time -o "$TMP/rss" -f %M "$ALLOX_CLI" run -- sh -c "$line" 2>"$TMP/err" | wc -c > "$TMP/count"
	[ "$(cat "$TMP/count")" -eq 100000000 ] || fail "stdout has $(cat "$TMP/count") bytes"
	echo "run of a 100 MB line: CLI peak RSS $(tail -1 "$TMP/rss") KiB"
	[ "$(tail -1 "$TMP/rss")" -lt 65536 ] || fail "peak RSS $(tail -1 "$TMP/rss") KiB"
else
	"$ALLOX_CLI" run -- sh -c "$line" 2>"$TMP/err" | wc -c > "$TMP/count"
	[ "$(cat "$TMP/count")" -eq 100000000 ] || fail "stdout has $(cat "$TMP/count") bytes"
fi

t "output with escapes and invalid UTF-8: raw keeps the escapes, json escapes them"
# Output travels as JSON text: a byte that is not UTF-8 arrives as U+FFFD
# (as with OpenSandbox's execd); escape sequences arrive verbatim.
out='printf "a\033]0;pwned\007b\033[2Jc\377\376d\n"'
run allox run -- sh -c "$out"
expect_rc 0
printf 'a\033]0;pwned\007b\033[2Jc\357\277\275\357\277\275d\n' | cmp -s - "$TMP/out" || fail "raw is not verbatim"
run allox run -o json -- sh -c "$out"
expect_rc 0
no_controls "$TMP/out" || fail "raw control bytes in json"
jq -e '.exit_code == 0 and (.stdout | startswith("a\u001b]0;pwned\u0007b\u001b[2Jc"))' "$TMP/out" >/dev/null ||
	fail "json does not keep the escapes"

# Straight to the sandbox's agent: what the fuzzer found in its multipart parser.
AGENT="http://127.0.0.1:$(jq -r .runtime.agentPort "$STATE/$ID/record.json")"
TOKEN="X-EXECD-ACCESS-TOKEN: $(jq -r .runtime.token "$STATE/$ID/record.json")"
upload() {
	code=$(curl -s -o "$TMP/body" -w '%{http_code}' --max-time 30 -H "$TOKEN" -H "Content-Type: $1" \
		--data-binary @"$2" "$AGENT/files/upload")
}
agent_alive() {
	[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -H "$TOKEN" "$AGENT/ping")" = 200 ]
}

t "agent: a long line goes out in bounded events marked partial"
code=$(curl -s -N -o "$TMP/events" -w '%{http_code}' --max-time 60 -H "$TOKEN" -H 'Content-Type: application/json' \
	--data-binary '{"command":"head -c 1000000 /dev/zero | tr \"\\0\" a; printf \"\\nend\""}' "$AGENT/command")
[ "$code" = 200 ] || fail "HTTP $code"
# SSE or bare JSON lines: keep the JSON objects.
sed -n 's/^data: //p; /^{/p' "$TMP/events" | jq -s '[.[] | select(.type == "stdout")]' > "$TMP/stdout.json"
jq -e 'all(.[]; (.text | length) <= 32768)' "$TMP/stdout.json" >/dev/null || fail "an event over 32 KiB"
jq -e '([.[].text | length] | add) == 1000003' "$TMP/stdout.json" >/dev/null || fail "bytes lost or added"
jq -e '(.[:-2] | all(.[]; .partial == true)) and (.[-2].partial | not) and .[-1].text == "end" and .[-1].partial == true' \
	"$TMP/stdout.json" >/dev/null || fail "partial marks: $(jq -c '[.[] | [(.text | length), .partial]]' "$TMP/stdout.json")"

t "agent: a multipart part without a name is ignored (it crashed the agent)"
printf -- '--XyZ\r\nContent-Disposition: form-data; name="metadata"; filename="metadata"\r\n\r\n{"path":"/home/gem/noname"}\r\n--XyZ\r\nContent-Disposition: form-data\r\n\r\nstray\r\n--XyZ\r\nContent-Disposition: form-data; name="file"; filename="f"\r\n\r\nkept\r\n--XyZ--\r\n' > "$TMP/noname.body"
upload 'multipart/form-data; boundary=XyZ' "$TMP/noname.body"
[ "$code" = 200 ] || fail "HTTP $code: $(cat "$TMP/body")"
agent_alive || fail "the agent does not answer"
[ "$(cat "$LAYER/noname" 2>/dev/null)" = kept ] || fail "file part not written"

t "agent: an url-encoded body is no upload (400), whatever it holds"
printf 'metadata=%%7B%%22path%%22%%3A%%22%%2Fhome%%2Fgem%%2Furlenc%%22%%7D&file=x%%' > "$TMP/urlenc.body"
upload 'application/x-www-form-urlencoded' "$TMP/urlenc.body"
[ "$code" = 400 ] || fail "HTTP $code"
jq -e '.code == "INVALID_FILE"' "$TMP/body" >/dev/null || fail "code: $(cat "$TMP/body")"
[ ! -e "$LAYER/urlenc" ] || fail "file written"
agent_alive || fail "the agent does not answer"

t "the shell's output pane shows escapes and invalid UTF-8 harmlessly"
if command -v tmux >/dev/null 2>&1; then
	SOCK="allox-hostile-$$"
	tm() {
		tmux -L "$SOCK" "$@"
	}
	trap 'tm kill-server 2>/dev/null; stop_engine; rm -rf "$TMP"' EXIT
	on_screen() {
		tm capture-pane -p -t main | grep -qF -- "$1"
	}
	printf 'env TERM=screen "%s"\nsleep 600\n' "$ALLOX_CLI" > "$TMP/pane.sh"
	tm -f /dev/null new-session -d -s main -x 120 -y 40 "sh $TMP/pane.sh"
	wait_until 20 on_screen "allox>" || fail "no prompt"
	# X, an OSC title, Y, clear screen, Z, bytes that are not UTF-8, then a marker.
	tm send-keys -t main -l "run -- sh -c 'printf \"X\\033]0;pwned\\007Y\\033[2JZ\\377\\376!\\n\"; echo done-\$((40+2))'"
	tm send-keys -t main Enter
	wait_until 60 on_screen "done-42" || fail "the command did not finish"
	tm capture-pane -p -t main > "$TMP/out"
	grep -q '^.*XYZ' "$TMP/out" || fail "the output line is not XYZ..."
	[ "$(tm display-message -p -t main '#{pane_title}')" != pwned ] || fail "the output set the terminal's title"
	grep -qF "Sessions" "$TMP/out" || fail "the screen was cleared"
	tm kill-server 2>/dev/null
else
	echo "tmux not installed: TUI case skipped"
fi

t "no cgroup is left of a sandbox of this test: ended ones, then all once the engine stops"
expect_clean_stop

done_testing
