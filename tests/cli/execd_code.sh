#!/bin/sh
# allox-agent's code-interpreting routes of the execd API as a client sees
# them, with real ipykernels: contexts (create, get, list by language,
# delete one, delete by language), POST /code's event stream (order and
# fields of init, execution_count, stdout, stderr, result, error,
# execution_complete), state kept within a context and not across them,
# the default context of a language, a run without a language (a shell
# command), interrupting (DELETE /code?id=, and the client hanging up), and
# the ErrorResponse of refusals. Needs ALLOX_AGENT, ALLOX_LISTEN_FD, curl,
# jq and Debian's python3-ipykernel.
set -u

: "${ALLOX_AGENT:?ALLOX_AGENT must point at the allox-agent binary}"
: "${ALLOX_LISTEN_FD:?ALLOX_LISTEN_FD must point at the listen_fd test helper}"
. "${TESTS_DIR:-tests}/cli/agent_lib.sh"
PID=""
cleanup() {
	if [ -n "$PID" ]; then
		kill -TERM "$PID" 2>/dev/null
		until_true 100 dead "$PID" || kill -KILL "$PID" 2>/dev/null
		wait "$PID" 2>/dev/null
	fi
}
agent_test_init allox-execd-code
TOKEN=t0k3n-code-0123456789abcdef
T_HDR="X-EXECD-ACCESS-TOKEN: $TOKEN"
SLOW=${ALLOX_TEST_SLOW:-1}
POLL_SCALE=$SLOW
# Kernel files go to the agent's TMPDIR, inside this test's directory; only
# the system's kernelspecs (python3) are found.
mkdir -p "$TMP/tmp"
export TMPDIR="$TMP/tmp"
export JUPYTER_PATH="$TMP/jupyter"

fail_context() {
	last_body "last body" 2000
	echo "--- agent stderr (last 10 lines)" >&2
	tail -n 10 "$TMP/agent.err" >&2
}

# req METHOD PATH [CURL-ARGS...]: sets $code, body in $TMP/body.
req() {
	m=$1
	p=$2
	shift 2
	code=$(curl -s -o "$TMP/body" -D "$TMP/headers" -w '%{http_code}' --max-time $((120 * SLOW)) \
		-H "$T_HDR" -X "$m" "$@" "$URL$p")
}

post() {
	req POST "$1" -N -H 'Content-Type: application/json' --data-binary "$2"
}

# run CODE [CONTEXT-JSON]: POST /code; the events land in $TMP/body.
run() {
	post /code "$(jq -nc --arg c "$1" --argjson ctx "${2:-null}" '{code: $c} + (if $ctx then {context: $ctx} else {} end)')"
}

# ev [JQ-ARGS...] FILTER: FILTER holds for the array of the last stream's events.
ev() {
	jq -e -s "$@" "$TMP/body" >/dev/null 2>&1 || fail "events fail: $*"
}

# No kernel of this agent runs (their connection files are under $TMP).
kernels_gone() {
	! pgrep -f "ipykernel_launcher.*$TMP" >/dev/null
}

types() {
	jq -r -s 'map(select(.type != "ping") | .type) | join(",")' "$TMP/body"
}

launch_agent "" "$TMP" "$TMP/agent.err" sb-code
agent_port 30 "$TMP" || { echo "FAIL: the agent did not start" >&2; cat "$TMP/agent.err" >&2; exit 1; }
URL="http://127.0.0.1:$PORT"
agent_ping 30 || { echo "FAIL: no /ping" >&2; exit 1; }

# Bash contexts first: with no bash kernel installed they are bash
# sessions, served without the extension module.
t "POST /code/context: a bash context (a bash session)"
mkdir -p "$TMP/bashcwd"
post /code/context "{\"language\":\"bash\",\"cwd\":\"$TMP/bashcwd\"}"
expect_code 200
jq_body '.language == "bash" and (.id | type == "string" and length > 0) and (keys == ["id","language"])'
B1=$(jq -r .id "$TMP/body")
req GET "/code/contexts/$B1"
expect_code 200
jq_body --arg id "$B1" '. == {id: $id, language: "bash"}'

t "POST /code in a bash context: events, variables and cwd persist"
run 'echo hi; echo oops >&2; X=41; declare -a ARR=(a b); cd sub 2>/dev/null || { mkdir sub && cd sub; }' "{\"id\":\"$B1\"}"
expect_code 200
[ "$(types)" = "init,execution_count,stdout,stderr,execution_complete" ] || fail "event order: $(types)"
ev --arg id "$B1" '.[0].text == $id and .[1].execution_count == 1'
ev '[.[] | select(.type == "stdout") | .text] | join("") == "hi"'
ev '[.[] | select(.type == "stderr") | .text] | join("") == "oops"'
ev 'last | .type == "execution_complete" and (.execution_time | type == "number")'
run 'echo "$((X + 1)) ${ARR[1]} $PWD"' "{\"id\":\"$B1\",\"language\":\"bash\"}"
ev --arg d "$TMP/bashcwd/sub" '[.[] | select(.type == "stdout") | .text] | join("") == "42 b \($d)"'
ev '.[1].execution_count == 2'

t "POST /code in a bash context: a non-zero exit as the bash kernel reports it"
run 'echo before; false' "{\"id\":\"$B1\"}"
[ "$(types)" = "init,execution_count,stdout,error" ] || fail "event order: $(types)"
ev 'last.error == {ename: "", evalue: "1", traceback: []}'
run 'echo "still $X"' "{\"id\":\"$B1\"}"
ev '[.[] | select(.type == "stdout") | .text] | join("") == "still 41"'

t "POST /code with only the language bash: its default context, state kept"
run 'BD=7' '{"language":"bash"}'
ev 'last.type == "execution_complete"'
BD=$(jq -r -s '.[0].text' "$TMP/body")
run 'echo $BD' '{"language":"bash"}'
ev --arg d "$BD" '.[0].text == $d and ([.[] | select(.type == "stdout") | .text] | join("") == "7")'

t "DELETE /code?id= interrupts a bash loop, the context keeps its state"
# A fresh pair of files: the last run's would satisfy the waits below at once.
rm -f "$TMP/long" "$TMP/long.code"
(
	code=$(curl -s -N -o "$TMP/long" --max-time $((60 * SLOW)) -H "$T_HDR" -H 'Content-Type: application/json' \
		-w '%{http_code}' --data-binary "{\"code\":\"for i in \$(seq 100); do echo \$i; sleep 0.2; done; LOOPED=1\",\"context\":{\"id\":\"$B1\"}}" \
		"$URL/code")
	echo "$code" >"$TMP/long.code"
) &
BG=$!
until_true 100 grep -qs '"stdout"' "$TMP/long" || fail "no output from the long bash run"
req DELETE "/code?id=$B1"
expect_code 200
until_true 100 test -s "$TMP/long.code" || fail "the interrupted bash run did not end"
wait "$BG" 2>/dev/null
cp "$TMP/long" "$TMP/body"
ev 'last.error == {ename: "", evalue: "130", traceback: []}'
ev '(map(select(.type == "stdout")) | length) < 60'
run 'echo "${LOOPED:-no} $X"' "{\"id\":\"$B1\"}"
ev '[.[] | select(.type == "stdout") | .text] | join("") == "no 41"'

t "bash contexts: listed, deleted, and no extension module loaded"
req GET '/code/contexts?language=bash'
jq_body --arg a "$B1" --arg d "$BD" '(map(.id) | sort) == ([$a, $d] | sort) and all(.[]; .language == "bash")'
req GET /code/contexts
jq_body --arg a "$B1" 'map(.id) | index($a) != null'
grep -q 'loaded .*allox-agent-ext' "$TMP/agent.err" && fail "the bash contexts loaded the extension module"
req DELETE "/code/contexts/$B1"
expect_code 200
req GET "/code/contexts/$B1"
expect_code 404
jq_body '.code == "CONTEXT_NOT_FOUND"'
req DELETE '/code/contexts?language=bash'
expect_code 200
req GET '/code/contexts?language=bash'
jq_body '. == []'

t "POST /code/context: a python context, its kernel running"
post /code/context '{"language":"python"}'
expect_code 200
jq_body '.language == "python" and (.id | type == "string" and length > 0) and (keys == ["id","language"])'
C1=$(jq -r .id "$TMP/body")

t "GET /code/contexts/{id}"
req GET "/code/contexts/$C1"
expect_code 200
jq_body --arg id "$C1" '. == {id: $id, language: "python"}'

t "POST /code: events in order, with the spec's fields"
run 'import sys
print("hello")
print("oops", file=sys.stderr)
6 * 7' "{\"id\":\"$C1\"}"
expect_code 200
grep -qi '^content-type: text/event-stream' "$TMP/headers" || fail "Content-Type"
ty=$(types)
case $ty in
init,execution_count,*result,execution_complete) ;;
*) fail "event order: $ty" ;;
esac
ev --arg id "$C1" '.[0] == (.[0] | {type: "init", text: $id, timestamp}) and (.[0].timestamp | type == "number")'
ev 'map(select(.type == "execution_count"))[0].execution_count == 1'
ev '[.[] | select(.type == "stdout") | .text] | join("") == "hello\n"'
ev '[.[] | select(.type == "stderr") | .text] | join("") == "oops\n"'
ev 'map(select(.type == "result"))[0].results == {text: "42"}'
ev 'last | .type == "execution_complete" and (.execution_time | type == "number") and (.timestamp | type == "number")'
ev 'all(.[]; .timestamp | type == "number")'

t "POST /code: state persists within a context"
run 'x = 41' "{\"id\":\"$C1\"}"
ev 'last.type == "execution_complete"'
run 'x + 1' "{\"id\":\"$C1\",\"language\":\"python\"}"
ev 'map(select(.type == "result"))[0].results.text == "42"'
ev 'map(select(.type == "execution_count"))[0].execution_count == 3'

t "POST /code: rich results keep their MIME types"
run 'from IPython.display import HTML, display
display(HTML("<b>bold</b>"))' "{\"id\":\"$C1\"}"
ev 'map(select(.type == "result"))[0].results | .["text/html"] == "<b>bold</b>" and has("text")'

t "POST /code: an exception ends the stream with an error event"
run 'print("before")
undefined_var' "{\"id\":\"$C1\"}"
expect_code 200
ty=$(types)
case $ty in
init,execution_count,stdout,error) ;;
*) fail "event order: $ty" ;;
esac
ev 'last | .type == "error" and .error.ename == "NameError" and (.error.evalue | test("undefined_var"))
	and (.error.traceback | type == "array" and length > 0)'
ev 'map(select(.type == "execution_complete")) | length == 0'

t "contexts are isolated from each other"
post /code/context '{"language":"python"}'
C2=$(jq -r .id "$TMP/body")
run 'x' "{\"id\":\"$C2\"}"
ev 'last | .type == "error" and .error.ename == "NameError"'

t "POST /code with only a language: its default context, state kept"
run 'y = 5' '{"language":"python"}'
ev '.[0].type == "init" and (.[0].text | length > 0) and last.type == "execution_complete"'
D=$(jq -r -s '.[0].text' "$TMP/body")
run 'y * 2' '{"language":"python"}'
ev --arg d "$D" '.[0].text == $d and (map(select(.type == "result"))[0].results.text == "10")'

t "POST /code without a context: a shell command"
run 'echo from-shell'
expect_code 200
ev '[.[] | select(.type == "stdout") | .text] | join("") | test("from-shell")'
ev 'last.type == "execution_complete"'

t "GET /code/contexts: all, and by language"
req GET /code/contexts
expect_code 200
jq_body --arg a "$C1" --arg b "$C2" --arg d "$D" '[.[].id] | (index($a) != null and index($b) != null and index($d) != null)'
req GET '/code/contexts?language=python'
jq_body --arg a "$C1" 'map(.id) | index($a) != null'
jq_body 'all(.[]; .language == "python")'
req GET '/code/contexts?language=cobol'
expect_code 200
jq_body '. == []'

t "DELETE /code?id=: interrupts the running code, the context keeps its state"
run 'z = 7' "{\"id\":\"$C1\"}"
# A fresh pair of files: the last run's would satisfy the waits below at once.
rm -f "$TMP/long" "$TMP/long.code"
(
	code=$(curl -s -N -o "$TMP/long" --max-time $((60 * SLOW)) -H "$T_HDR" -H 'Content-Type: application/json' \
		-w '%{http_code}' --data-binary "{\"code\":\"import time\\nfor i in range(100):\\n  print(i, flush=True)\\n  time.sleep(0.2)\",\"context\":{\"id\":\"$C1\"}}" \
		"$URL/code")
	echo "$code" >"$TMP/long.code"
) &
BG=$!
until_true 100 grep -qs '"stdout"' "$TMP/long" || fail "no output from the long run"
req DELETE "/code?id=$C1"
expect_code 200
until_true 100 test -s "$TMP/long.code" || fail "the interrupted run did not end"
wait "$BG" 2>/dev/null
cp "$TMP/long" "$TMP/body"
ev 'last | .type == "error" and .error.ename == "KeyboardInterrupt"'
ev '(map(select(.type == "stdout")) | length) < 60'
run 'z' "{\"id\":\"$C1\"}"
ev 'map(select(.type == "result"))[0].results.text == "7"'

t "a client that hangs up interrupts its code"
curl -s -N -o /dev/null --max-time 2 -H "$T_HDR" -H 'Content-Type: application/json' \
	--data-binary "{\"code\":\"import time\\nfor i in range(100):\\n  time.sleep(0.1)\\nw = 1\",\"context\":{\"id\":\"$C2\"}}" \
	"$URL/code"
run 'print("next")' "{\"id\":\"$C2\"}"
ev '[.[] | select(.type == "stdout") | .text] | join("") == "next\n"'
run "'w' in dir()" "{\"id\":\"$C2\"}"
ev 'map(select(.type == "result"))[0].results.text == "False"'

t "DELETE /code/contexts/{id}, then it is gone"
req DELETE "/code/contexts/$C2"
expect_code 200
req GET "/code/contexts/$C2"
expect_code 404
jq_body '.code == "CONTEXT_NOT_FOUND" and (.message | type == "string")'
req DELETE "/code/contexts/$C2"
expect_code 404
jq_body '.code == "CONTEXT_NOT_FOUND"'
run '1' "{\"id\":\"$C2\"}"
expect_code 500
jq_body '.code == "CONTEXT_NOT_FOUND"'

t "DELETE /code/contexts?language=python deletes them all"
req DELETE '/code/contexts?language=python'
expect_code 200
req GET '/code/contexts?language=python'
jq_body '. == []'
req GET "/code/contexts/$C1"
expect_code 404
until_true 50 kernels_gone || fail "kernels still running"

t "refusals are ErrorResponses"
post /code/context '{"language":"cobol"}'
expect_code 500
jq_body '.code == "RUNTIME_ERROR" and (.message | test("cobol"))'
run '1' '{"language":"cobol"}'
expect_code 500
jq_body '.code == "RUNTIME_ERROR" and (.message | test("cobol"))'
post /code '{"context":{"language":"python"}}'
expect_code 400
jq_body '.code == "INVALID_REQUEST_BODY"'
post /code 'not json'
expect_code 400
jq_body '.code == "INVALID_REQUEST_BODY"'
req DELETE /code
expect_code 400
jq_body '.code == "MISSING_QUERY"'
req DELETE '/code?id=fake-context'
expect_code 500
jq_body '.code == "CONTEXT_NOT_FOUND"'
req DELETE /code/contexts
expect_code 400
jq_body '.code == "MISSING_QUERY"'

summary
