#!/bin/sh
# run and aio exec/read against a real local engine: streaming, exit statuses, timeouts.
. "${TESTS_DIR:-tests}/cli/lib.sh"
. "${TESTS_DIR:-tests}/cli/engine_lib.sh"

allox sandbox create -o json > "$TMP/created" || { echo "cannot create a sandbox"; exit 1; }
ID=$(jq -r .id "$TMP/created")

t "run prints output and exits 0"
run allox run -- echo hello world
expect_rc 0
expect_out "hello world"

t "exit statuses pass through"
for code in 1 7 255; do
	run allox run -- sh -c "exit $code"
	[ "$rc" -eq "$code" ] || fail "exit $code gave $rc"
done

t "stderr stays apart"
run allox run -- sh -c 'echo out; echo err >&2'
expect_rc 0
expect_out "out"
expect_err "err"

t "a single word is a shell line; several words are quoted"
run allox run -- 'echo "a  b" | tr a x'
expect_out "x  b"
run allox run -- printf '%s|' 'a b' "it's" '$HOME'
# Byte-exact: a last line without a newline gets none (hostile.sh).
printf '%s' "a b|it's|\$HOME|" | cmp -s - "$TMP/out" || fail "stdout differs from: a b|it's|\$HOME|"

t "options before the command; the command keeps its own"
run allox run -w /tmp -- sh -c 'pwd; echo -o json'
expect_out "/tmp
-o json"

t "an explicit sandbox id"
run allox run "$ID" -- cat /etc/hostname
expect_rc 0

# expect_streams CMD...: CMD runs `echo a; sleep N; echo b`; a shows before the end.
expect_streams() {
	"$@" > "$TMP/stream" 2>&1 &
	pid=$!
	i=0
	while [ $i -lt 60 ] && ! grep -q a "$TMP/stream"; do sleep 0.05; i=$((i + 1)); done
	grep -q '^a$' "$TMP/stream" || fail "first line did not arrive early"
	grep -q '^b$' "$TMP/stream" && fail "second line arrived too early"
	wait $pid
	grep -q '^b$' "$TMP/stream" || fail "second line missing"
}

t "output arrives before the command ends"
expect_streams "$ALLOX_CLI" run -- sh -c 'echo a; sleep 3; echo b'

t "-o json shows nothing until the document, which has it all"
"$ALLOX_CLI" run -o json -- sh -c 'echo a; sleep 2; echo b' > "$TMP/doc" 2>&1 &
pid=$!
sleep 1
[ -s "$TMP/doc" ] && fail "output before the document: $(cat "$TMP/doc")"
wait $pid
jq -e '.stdout == "a\nb\n" and .exit_code == 0' "$TMP/doc" >/dev/null || fail "document: $(cat "$TMP/doc")"

t "--timeout ends the command with 124"
run allox run --timeout 1 -- sleep 30
expect_rc 124
expect_err_has "timed out"

t "-o json is alone on stdout"
run allox run -o json -- sh -c 'echo out; echo err >&2; exit 3'
expect_rc 3
jq -e '.exit_code == 3 and .stdout == "out\n" and .stderr == "err\n" and (.duration_ms | type == "number")' "$TMP/out" >/dev/null || fail "json"

t "20 parallel runs are all correct"
i=0
while [ $i -lt 20 ]; do
	"$ALLOX_CLI" run -- sh -c "echo n$i; exit $((i % 4))" > "$TMP/p.$i" 2>&1 &
	eval "pid_$i=\$!"
	i=$((i + 1))
done
i=0
while [ $i -lt 20 ]; do
	eval "wait \$pid_$i"
	code=$?
	[ "$code" -eq $((i % 4)) ] || fail "run $i exited $code"
	[ "$(cat "$TMP/p.$i")" = "n$i" ] || fail "run $i printed $(cat "$TMP/p.$i")"
	i=$((i + 1))
done

t "Ctrl-C stops the remote command and exits 130"
# timeout delivers SIGINT as a terminal would (a background job of a script ignores it).
timeout -k 15 --preserve-status -s INT 2 "$ALLOX_CLI" run -- sh -c 'echo started; sleep 30' > "$TMP/int" 2>&1
code=$?
[ "$code" -eq 130 ] || fail "exit $code after SIGINT"
grep -q '^started$' "$TMP/int" || fail "no output before the interrupt"
run allox run -- sh -c 'ps -o comm= -e 2>/dev/null | grep -c "^sleep$" || true'
[ "$(cat "$TMP/out")" = 0 ] || fail "remote sleep still running"

t "SIGTERM stops the remote command and exits 143"
timeout -k 15 --preserve-status -s TERM 2 "$ALLOX_CLI" run -- sleep 30 > "$TMP/int" 2>&1
code=$?
[ "$code" -eq 143 ] || fail "exit $code after SIGTERM"

t "aio exec quotes what you type"
run allox aio exec -- sh -c "echo v1 > /home/gem/version.txt"
expect_rc 0
run allox run -- cat /home/gem/version.txt
expect_out "v1"

t "aio exec passes exit statuses through"
run allox aio exec -- sh -c 'echo out; exit 7'
expect_rc 7
expect_out "out"

t "aio exec --timeout gives 124"
run allox aio exec --timeout 1 -- sleep 10
expect_rc 124

t "aio exec output arrives before the command ends"
expect_streams "$ALLOX_CLI" aio exec -- 'echo a; sleep 4; echo b'

t "aio exec --timeout: raw says why on stderr, json in the document only"
run allox aio exec --timeout 1 -- 'echo s; sleep 10'
expect_rc 124
expect_out "s"
expect_err "Error: Command timed out after 1 seconds"
run allox aio exec -o json --timeout 1 -- 'echo s; sleep 10'
expect_rc 124
[ -s "$TMP/err" ] && fail "stderr with -o json"
jq -e '.error == "Command timed out after 1 seconds" and .output == "s\n"' "$TMP/out" >/dev/null || fail "json"

t "aio exec -o json"
run allox aio exec -o json -- echo hi
expect_rc 0
jq -e '.status == "completed" and .exit_code == 0 and .output == "hi\n" and .error == null' "$TMP/out" >/dev/null || fail "json"

t "aio read with only a path uses the session"
run allox aio read /home/gem/version.txt
expect_rc 0
expect_out "v1"
run allox aio read /home/gem/version.txt -o json
jq -e '.path == "/home/gem/version.txt" and .content == "v1\n"' "$TMP/out" >/dev/null || fail "json"
run allox aio read /home/gem/missing.txt
expect_rc 1

t "no session, no id"
allox session clear >/dev/null
run allox run -- true
expect_rc 1
expect_err_has "No sandbox_id and no current session"
run allox run "$ID"
expect_rc 2

t "no cgroup is left of a sandbox of this test: ended ones, then all once the engine stops"
expect_clean_stop

done_testing
