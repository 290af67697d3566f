#!/bin/sh
# aio jupyter run against a real local engine: a real ipykernel in the
# sandbox, state kept between calls, results, errors, timeouts, images, and
# one kernel per sandbox.
. "${TESTS_DIR:-tests}/cli/lib.sh"
. "${TESTS_DIR:-tests}/cli/engine_lib.sh"

allox sandbox create -o json > "$TMP/created" || { echo "cannot create a sandbox"; exit 1; }
ID=$(jq -r .id "$TMP/created")

now_ms() {
	date +%s%3N
}

t "the README's example: status ok and output 4"
run allox aio jupyter run -c "print(2 + 2)" -o json
expect_rc 0
jq -e '.status == "ok" and .session_id == "default" and .kernel_name == "python3"
	and (.execution_count | type == "number") and (.msg_id | type == "string") and .code == "print(2 + 2)"
	and .outputs == [{output_type: "stream", name: "stdout", text: "4\n", data: null, metadata: null,
		execution_count: null, ename: null, evalue: null, traceback: null}]' "$TMP/out" >/dev/null || fail "json"
[ ! -s "$TMP/err" ] || fail "stderr not empty"

t "state persists between calls"
run allox aio jupyter run -c "x = 41"
expect_rc 0
expect_empty_out
run allox aio jupyter run -c "print(x + 1)"
expect_rc 0
expect_out "42"

t "an expression's value is shown"
run allox aio jupyter run -c "x * 2"
expect_rc 0
expect_out "82"
run allox aio jupyter run -c "x + 1" -o json
jq -e '.outputs[0].output_type == "execute_result" and .outputs[0].data["text/plain"] == "42"
	and .outputs[0].execution_count == .execution_count' "$TMP/out" >/dev/null || fail "json"

t "stderr output goes to stderr"
run allox aio jupyter run -c 'import sys; print("out"); print("err", file=sys.stderr)'
expect_rc 0
expect_out "out"
expect_err "err"

t "an error exits 1, names it and shows the traceback without colour off a terminal"
run allox aio jupyter run -c "1/0"
expect_rc 1
expect_empty_out
expect_err_has "ZeroDivisionError: division by zero"
expect_err_has "Error: Jupyter execution status: error"
grep -q "$(printf '\033')" "$TMP/err" && fail "ANSI escapes off a terminal"
run allox aio jupyter run -c "1/0" -o json
expect_rc 1
jq -e '.status == "error" and .outputs[-1].ename == "ZeroDivisionError" and (.outputs[-1].traceback | length > 0)' \
	"$TMP/out" >/dev/null || fail "json"

t "the call after an error runs: nothing is aborted, however long the kernel would abort for"
# ipykernel aborts what arrives in its abort window after an error; a
# request sent the moment the failed one ended could land there (seen
# after an interrupt on a busy CI machine). A 5 s window makes it certain.
run allox aio jupyter run -c "get_ipython().kernel.stop_on_error_timeout = 5.0"
expect_rc 0
run allox aio jupyter run -c "1/0"
expect_rc 1
run allox aio jupyter run -c "print(x)"
expect_rc 0
expect_out "41"
run allox aio jupyter run -c "get_ipython().kernel.stop_on_error_timeout = 0.0"
expect_rc 0

t "a request the kernel aborts unrun is sent again"
cat > "$TMP/abort_next.py" <<'EOF'
k = get_ipython().kernel
plain = k._send_abort_reply
def once(*args):
    k._aborting = False
    k._send_abort_reply = plain
    plain(*args)
k._send_abort_reply = once
k._aborting = True
EOF
run allox aio jupyter run -f "$TMP/abort_next.py"
expect_rc 0
run allox aio jupyter run -c "print(x)" -o json
expect_rc 0
jq -e '.status == "ok" and .outputs[0].text == "41\n"' "$TMP/out" >/dev/null || fail "json"

t "code from standard input and from a file"
printf 'y = x - 1\nprint("from stdin", y)\n' | allox aio jupyter run -f - >"$TMP/out" 2>"$TMP/err"
rc=$?
expect_rc 0
expect_out "from stdin 40"
printf 'print("from a file")\n' > "$TMP/code.py"
run allox aio jupyter run -f "$TMP/code.py"
expect_rc 0
expect_out "from a file"

t "a timeout interrupts the code; the kernel keeps its state"
t0=$(now_ms)
run allox aio jupyter run --timeout 2 -c "while True: pass"
elapsed=$(($(now_ms) - t0))
expect_rc 1
expect_err_has "Jupyter execution status: timeout"
[ "$elapsed" -lt 15000 ] || fail "took $elapsed ms"
run allox aio jupyter run --timeout 1 -c "import time; print('started', flush=True); time.sleep(30)" -o json
expect_rc 1
jq -e '.status == "timeout" and .outputs[0].text == "started\n"' "$TMP/out" >/dev/null || fail "json"
run allox aio jupyter run -c "print(x)"
expect_rc 0
expect_out "41"

t "Ctrl-C ends the call with 130 and interrupts the kernel, which keeps its state"
env --default-signal=INT "$ALLOX_CLI" aio jupyter run --timeout 120 \
	-c "import time
open('/tmp/looping', 'w').close()
for _ in range(1200): time.sleep(0.1)
x = 99" > "$TMP/loop.out" 2> "$TMP/loop.err" &
lpid=$!
wait_until 30 "$ALLOX_CLI" aio exec -- test -e /tmp/looping || fail "the loop did not start: $(cat "$TMP/loop.err")"
kill -INT $lpid
wait $lpid
lrc=$?
[ $lrc -eq 130 ] || fail "exit status $lrc"
# Without the interrupt this call would queue behind the 120 s loop.
t0=$(now_ms)
run allox aio jupyter run --timeout 30 -c "print(x)"
elapsed=$(($(now_ms) - t0))
expect_rc 0
expect_out "41"
[ "$elapsed" -lt 20000 ] || fail "the kernel was still busy for $elapsed ms"

t "--save-images writes display_data PNGs and names them"
cat > "$TMP/plot.py" <<'EOF'
import base64
from IPython.display import Image, display
print("before")
display(Image(data=base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")))
EOF
run allox aio jupyter run -f "$TMP/plot.py" --save-images "$TMP/images"
expect_rc 0
png=$(ls "$TMP"/images/output_*_1.png 2>/dev/null)
[ -n "$png" ] || fail "no image written"
expect_out "before
[image/png saved to $png]"
[ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "not a PNG"
run allox aio jupyter run -f "$TMP/plot.py"
expect_out "before
<IPython.core.display.Image object>"
run allox aio jupyter run -f "$TMP/plot.py" --save-images "$TMP/images2" -o json
jq -e '(.saved_images | length) == 1 and (.outputs[1].data["image/png"] | type == "string")' "$TMP/out" >/dev/null ||
	fail "json"
[ -s "$(jq -r '.saved_images[0]' "$TMP/out")" ] || fail "json: image missing"

t "sessions are separate kernels"
run allox aio jupyter run --session other -c "x"
expect_rc 1
expect_err_has "NameError"
run allox aio jupyter run --session other -c "x = 'other'; x" -o json
jq -e '.session_id == "other" and .outputs[0].data["text/plain"] == "'"'other'"'"' "$TMP/out" >/dev/null || fail "json"
run allox aio jupyter run -c "x"
expect_out "41"

t "a dead kernel is reported and the next call starts a fresh one"
run allox aio jupyter run --session other -c "import os; os._exit(3)"
expect_rc 1
expect_err_has "DeadKernelError: The kernel died (exit status 3)"
run allox aio jupyter run --session other -c "print('fresh', 'x' in globals())"
expect_rc 0
expect_out "fresh False"

t "two sandboxes have separate kernels"
allox sandbox create -o json > "$TMP/created2" || fail "cannot create a second sandbox"
ID2=$(jq -r .id "$TMP/created2")
run allox aio jupyter run "$ID2" -c "x"
expect_rc 1
expect_err_has "NameError: name 'x' is not defined"
# Each kernel runs inside its own sandbox, whose hostname is the id's start.
run allox aio jupyter run "$ID2" -c "import socket; x = 'second'; print(x, socket.gethostname())"
expect_rc 0
expect_out "second $(echo "$ID2" | cut -c1-12)"
run allox aio jupyter run "$ID" -c "import socket; print(x, socket.gethostname())"
expect_rc 0
expect_out "41 $(echo "$ID" | cut -c1-12)"
allox sandbox kill "$ID2" >/dev/null || fail "cannot kill the second sandbox"
allox session use "$ID" >/dev/null

t "bad input: a usage error or a clear one-line failure"
run allox aio jupyter run
expect_rc 2
expect_err_has "missing code: give -c CODE, -f FILE or -f - (standard input)"
run allox aio jupyter run -c 1 -f "$TMP/code.py"
expect_rc 2
run allox aio jupyter run -c 1 --timeout 301
expect_rc 2
expect_err_has "--timeout must be from 1s to 300s"
run allox aio jupyter run -f "$TMP/missing.py"
expect_rc 1
expect_err "Error: $TMP/missing.py: No such file or directory"
run allox aio jupyter run --session new --kernel nope -c 1
expect_rc 1
expect_err "Error: AIO API error (404): No such kernel: nope"
run allox aio jupyter run --kernel nope -c 1
expect_rc 1
expect_err "Error: AIO API error (400): Session default runs kernel python3, not nope"

t "no session, no id"
allox session clear >/dev/null
run allox aio jupyter run -c 1
expect_rc 1
expect_err_has "No sandbox_id and no current session"

t "no cgroup is left of a sandbox of this test: ended ones, then all once the engine stops"
expect_clean_stop

done_testing
