#!/bin/sh
# Checkpoints against a real local engine: the seed README's demos 2 and 3,
# whiteouts, restore chains, latest, concurrency, consistency, automatic
# checkpoints and watch.
. "${TESTS_DIR:-tests}/cli/lib.sh"
. "${TESTS_DIR:-tests}/cli/engine_lib.sh"

LAYERS="$ALLOX_HOME/engine/layers"
trap 'chattr -i "$LAYERS" 2>/dev/null; stop_engine; rm -rf "$TMP"' EXIT

# The directory holding allox-cli first on PATH, so the demos run as written.
BIN="$TMP/bin"
mkdir -p "$BIN"
ln -s "$ALLOX_CLI" "$BIN/allox-cli"

t "demo 2 as written prints v1"
cat > "$TMP/demo2.sh" <<'EOF'
set -e
SOURCE_ID=$(allox-cli sandbox create --timeout 30m -o json | jq -r '.id')
allox-cli aio exec -- sh -c "echo v1 > /home/gem/version.txt"
CHECKPOINT_ID=$(allox-cli checkpoint create --name v1 -o json | jq -r '.id')
allox-cli aio exec -- sh -c "echo v2 > /home/gem/version.txt"
allox-cli checkpoint list -o json
RESTORED_ID=$(allox-cli checkpoint restore "$CHECKPOINT_ID" --timeout 30m -o json | jq -r '.id')
allox-cli aio exec -- cat /home/gem/version.txt
allox-cli checkpoint delete "$CHECKPOINT_ID" -o json
allox-cli sandbox kill "$RESTORED_ID" -o json
allox-cli sandbox kill "$SOURCE_ID" -o json
EOF
run env PATH="$BIN:$PATH" sh "$TMP/demo2.sh"
expect_rc 0
grep -qx v1 "$TMP/out" || fail "the restored sandbox does not read v1"
grep -q '"name": "v1"' "$TMP/out" || fail "checkpoint list does not show v1"
grep -q '"deleted": true' "$TMP/out" || fail "delete not confirmed"
run allox checkpoint list --all -o json
expect_out "[]"
[ -z "$(ls "$LAYERS")" ] || wait_until 5 sh -c "[ -z \"\$(ls '$LAYERS')\" ]" || fail "layers left behind: $(ls "$LAYERS")"

allox sandbox create -o json > "$TMP/src" || { echo "cannot create a sandbox"; exit 1; }
SRC=$(jq -r .id "$TMP/src")

t "create prints the checkpoint with its size and time"
allox run -- sh -c 'head -c 1048576 /dev/zero > /home/gem/one-mib' >/dev/null
run allox checkpoint create --name sized -o json
expect_rc 0
jq -e --arg s "$SRC" '.sandbox_id == $s and .name == "sized" and .state == "Ready" and
	(.id | test("^[0-9a-f-]{36}$")) and .size_bytes >= 1048576 and (.seconds | type == "number") and
	(.created_at | test("Z$"))' "$TMP/out" >/dev/null || fail "create output"
SIZED=$(jq -r .id "$TMP/out")
# The upper directories of the exposed system directories the sandbox never
# wrote to (overlayfs stamps a uuid on each when it mounts them) are left out.
for d in "$LAYERS/$SIZED"/*/; do
	[ -n "$(ls -A "$d")" ] || fail "an untouched directory was captured: ${d#"$LAYERS/$SIZED/"}"
done

t "the engine answers a quick capture already Ready, with its size"
curl -s -D "$TMP/hdr" -o "$TMP/snap.json" --unix-socket "$ALLOX_HOME/run/engine.sock" -X POST \
	-H 'Content-Type: application/json' -d '{"name":"quick"}' "http://x/v1/sandboxes/$SRC/snapshots" ||
	fail "snapshot POST"
grep -q '^HTTP/1.1 202' "$TMP/hdr" || fail "status: $(head -1 "$TMP/hdr")"
jq -e '.status.state == "Ready" and .name == "quick"' "$TMP/snap.json" >/dev/null || fail "not Ready: $(cat "$TMP/snap.json")"
grep -qi '^x-allox-snapshot-size: [0-9][0-9]*' "$TMP/hdr" || fail "no size header"
allox checkpoint delete "$(jq -r .id "$TMP/snap.json")" >/dev/null || fail "delete quick"

t "the table shows the same fields"
run allox checkpoint list
expect_rc 0
expect_out_has "sized"
expect_out_has "Ready"

t "deleted files stay deleted and files deleted later come back"
allox run -- sh -c 'mkdir -p /home/gem/tree/sub && echo keep > /home/gem/tree/sub/a && echo bye > /home/gem/gone &&
	echo later > /home/gem/later' >/dev/null
allox run -- sh -c 'rm /home/gem/gone && rm -r /home/gem/tree' >/dev/null
allox checkpoint create --name deletions -o json > "$TMP/cp1" || fail "checkpoint"
CP1=$(jq -r .id "$TMP/cp1")
allox run -- sh -c 'rm /home/gem/later && mkdir -p /home/gem/tree && echo new > /home/gem/tree/b' >/dev/null
run allox checkpoint restore "$CP1" -o json
expect_rc 0
R1=$(jq -r .id "$TMP/out")
jq -e --arg c "$CP1" --arg s "$SRC" '.checkpoint_id == $c and .source_sandbox_id == $s and
	(.aio_url | startswith("http://"))' "$TMP/out" >/dev/null || fail "restore output"
run allox session current -o json
jq -e --arg r "$R1" '.sandbox_id == $r' "$TMP/out" >/dev/null || fail "the restored sandbox is not current"
run allox run -- sh -c 'ls /home/gem; cat /home/gem/later; ls -a /home/gem/tree 2>/dev/null'
expect_rc 2
expect_out_has "later"
grep -qx gone "$TMP/out" && fail "a file deleted before the checkpoint came back"
grep -qx sub "$TMP/out" && fail "a directory deleted before the checkpoint came back"

t "the source sandbox is untouched and keeps running"
run allox run "$SRC" -- sh -c 'cat /home/gem/tree/b; test ! -e /home/gem/later && echo ok'
expect_rc 0
expect_out "new
ok"

t "restore, change, checkpoint, restore again: only the new layer is stored"
allox run "$R1" -- sh -c 'echo second > /home/gem/second; rm /home/gem/one-mib' >/dev/null
allox checkpoint create "$R1" --name second -o json > "$TMP/cp2" || fail "checkpoint of a restored sandbox"
CP2=$(jq -r .id "$TMP/cp2")
[ "$(jq .size_bytes "$TMP/cp2")" -lt 1048576 ] || fail "the second layer holds the first one's data: $(jq .size_bytes "$TMP/cp2")"
run allox checkpoint restore "$CP2" -o json
expect_rc 0
R2=$(jq -r .id "$TMP/out")
run allox run -- sh -c 'cat /home/gem/second /home/gem/later; test -e /home/gem/one-mib || echo no-mib'
expect_out "second
later
no-mib"
# The file came from a lower layer, so its deletion is an overlay whiteout (a 0:0 character device).
[ -n "$(find "$LAYERS/$CP2/top/home/gem" -maxdepth 1 -name one-mib -type c)" ] || fail "no whiteout in the layer"

t "deleting checkpoints that live sandboxes use does not break them"
run allox checkpoint delete "$CP1" -o json
expect_rc 0
run allox checkpoint delete "$CP2"
expect_rc 0
run allox run "$R2" -- cat /home/gem/later /home/gem/second
expect_rc 0
expect_out "later
second"
run allox run "$R1" -- cat /home/gem/later
expect_out "later"

t "latest is the newest ready checkpoint of the current session's sandbox"
allox session use "$SRC" >/dev/null
allox run -- sh -c 'echo one > /home/gem/which' >/dev/null
allox checkpoint create --name one >/dev/null
allox run -- sh -c 'echo two > /home/gem/which' >/dev/null
allox checkpoint create --name two >/dev/null
allox run -- sh -c 'echo three > /home/gem/which' >/dev/null
run allox checkpoint restore latest -o json
expect_rc 0
run allox run -- cat /home/gem/which
expect_out "two"
run allox checkpoint restore --source-sandbox "$SRC" -o json
expect_rc 0
run allox run -- cat /home/gem/which
expect_out "two"

t "latest without any checkpoint says so"
run allox checkpoint restore latest --source-sandbox "$R2"
expect_rc 1
expect_err "Error: No READY checkpoint found for sandbox '$R2'."

t "two checkpoints of one sandbox taken at once"
allox session use "$SRC" >/dev/null
"$ALLOX_CLI" checkpoint create --name twin-a -o json > "$TMP/a" 2>&1 &
pa=$!
"$ALLOX_CLI" checkpoint create --name twin-b -o json > "$TMP/b" 2>&1 &
pb=$!
wait $pa; ra=$?
wait $pb; rb=$?
[ $ra -eq 0 ] && [ $rb -eq 0 ] || fail "exit statuses $ra $rb: $(cat "$TMP/a" "$TMP/b")"
jq -e '.state == "Ready"' "$TMP/a" >/dev/null && jq -e '.state == "Ready"' "$TMP/b" >/dev/null || fail "not both ready"
[ "$(jq -r .id "$TMP/a")" != "$(jq -r .id "$TMP/b")" ] || fail "one id for two checkpoints"
run allox run --timeout 10s -- echo still running
expect_rc 0
expect_out "still running"

t "a checkpoint of a file being appended to is a prefix, never torn"
allox run -- sh -c 'nohup sh -c "i=0; while :; do i=\$((i+1)); echo line-\$i-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx >> /home/gem/log; done" >/dev/null 2>&1 &' >/dev/null
sleep 0.5
allox checkpoint create --name busy -o json > "$TMP/busy" || fail "checkpoint while busy"
allox checkpoint restore "$(jq -r .id "$TMP/busy")" -o json > "$TMP/rb" || fail "restore busy"
RB=$(jq -r .id "$TMP/rb")
allox file download "$RB" /home/gem/log "$TMP/restored.log" >/dev/null || fail "download restored"
sleep 0.3
allox run "$SRC" -- sh -c 'pkill -f "line-" ; true' >/dev/null 2>&1
allox file download "$SRC" /home/gem/log "$TMP/final.log" >/dev/null || fail "download final"
size=$(wc -c < "$TMP/restored.log")
[ "$size" -gt 0 ] || fail "the restored log is empty"
head -c "$size" "$TMP/final.log" | cmp -s - "$TMP/restored.log" || fail "the restored log is not a prefix of the final one"
[ "$(tail -c 1 "$TMP/restored.log" | od -An -c | tr -d ' ')" = '\n' ] || fail "the restored log ends in a torn line"
awk -v n=0 '{ n++; if ($0 != "line-" n "-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx") { print "bad line " NR ": " $0; exit 1 } }' \
	"$TMP/restored.log" || fail "the restored log has a torn or missing line"
allox sandbox kill "$RB" >/dev/null

t "checkpoints and their layers survive an engine restart"
run allox checkpoint list "$SRC" -o json
before=$(jq length "$TMP/out")
kill "$(engine_pid)"
wait_until 5 sh -c "! kill -0 $(engine_pid) 2>/dev/null" || fail "engine did not stop"
run allox checkpoint list "$SRC" -o json
expect_rc 0
[ "$(jq length "$TMP/out")" -eq "$before" ] || fail "lost checkpoints over a restart"
run allox checkpoint restore "$SIZED" -o json
expect_rc 0
run allox run -- sh -c 'wc -c < /home/gem/one-mib'
expect_out "1048576"

t "a Ready checkpoint is written to disk once the engine has been idle for a second"
run allox checkpoint create "$SRC" -o json
expect_rc 0
SYNCED=$(jq -r .id "$TMP/out")
rec="$ALLOX_HOME/engine/snapshots/$SYNCED.json"
wait_until 5 sh -c "jq -e 'has(\"unsyncedInBoot\") | not' '$rec' >/dev/null" ||
	fail "still unsynced after 5 s: $(cat "$rec")"

t "over an engine restart, a checkpoint not yet on disk stays Ready and is synced"
kill "$(engine_pid)"
wait_until 5 sh -c "! kill -0 $(engine_pid) 2>/dev/null" || fail "engine did not stop"
jq --arg b "$(cat /proc/sys/kernel/random/boot_id)" '. + {unsyncedInBoot: $b}' "$rec" > "$TMP/rec" && cp "$TMP/rec" "$rec"
run allox checkpoint list "$SRC" -o json
expect_rc 0
jq -e --arg id "$SYNCED" '.[] | select(.id == $id) | .state == "Ready"' "$TMP/out" >/dev/null ||
	fail "not Ready: $(cat "$TMP/out")"
wait_until 5 sh -c "jq -e 'has(\"unsyncedInBoot\") | not' '$rec' >/dev/null" || fail "not synced: $(cat "$rec")"

t "after a reboot, a checkpoint that was not yet on disk is Failed, not restored torn"
kill "$(engine_pid)"
wait_until 5 sh -c "! kill -0 $(engine_pid) 2>/dev/null" || fail "engine did not stop"
jq '. + {unsyncedInBoot: "00000000-0000-0000-0000-000000000000"}' "$rec" > "$TMP/rec" && cp "$TMP/rec" "$rec"
run allox checkpoint list "$SRC" -o json
expect_rc 0
jq -e --arg id "$SYNCED" '.[] | select(.id == $id) | .state == "Failed"' "$TMP/out" >/dev/null ||
	fail "not Failed: $(cat "$TMP/out")"
jq -e '.status.message | contains("restarted before this checkpoint was written to disk")' "$rec" >/dev/null ||
	fail "no reason: $(cat "$rec")"
run allox checkpoint restore "$SYNCED"
expect_rc 1
allox checkpoint delete "$SYNCED" >/dev/null || fail "cannot delete it"

t "bad ids and states are one clear line with exit 1"
run allox checkpoint restore 00000000-0000-4000-8000-000000000000
expect_rc 1
expect_err_has "not found"
[ "$(wc -l < "$TMP/err")" -le 2 ] || fail "more than one line"
run allox checkpoint delete 00000000-0000-4000-8000-000000000000
expect_rc 1
allox sandbox pause "$SRC" >/dev/null
run allox checkpoint create "$SRC"
expect_rc 1
expect_err_has "Running"
allox sandbox resume "$SRC" >/dev/null
run allox checkpoint watch --interval 0
expect_rc 2
expect_err_has "greater than zero"

t "watch saves on its interval and Ctrl-C ends it with 0"
allox session use "$SRC" >/dev/null
env --default-signal=INT "$ALLOX_CLI" checkpoint watch --interval 1s --name-prefix tick > "$TMP/watch" 2>&1 &
wpid=$!
wait_until 20 sh -c "[ \$(grep -c '^Created checkpoint' '$TMP/watch') -ge 2 ]" || fail "watch did not save twice"
kill -INT $wpid
wait $wpid
wrc=$?
[ $wrc -eq 0 ] || fail "watch exit status $wrc"
head -1 "$TMP/watch" | grep -q "^Watching sandbox $SRC; checkpoint every 1s. Press Ctrl+C to stop.$" || fail "banner: $(cat "$TMP/watch")"
grep -q '^Created checkpoint [0-9a-f-]* (tick-1)$' "$TMP/watch" || fail "first save line: $(cat "$TMP/watch")"
tail -1 "$TMP/watch" | grep -q '^Checkpoint watch stopped.$' || fail "no stop line: $(cat "$TMP/watch")"
run allox checkpoint list -o json
jq -e '[.[] | select(.name == "tick-1" or .name == "tick-2")] | length == 2' "$TMP/out" >/dev/null || fail "ticks not listed"

t "watch --count stops by itself"
run allox checkpoint watch --interval 1s --count 1 --name-prefix once
expect_rc 0
expect_out_has "(once-1)"

t "demo 3's configuration: automatic checkpoints on success only"
cat > "$ALLOX_HOME/config.toml" <<'EOF'
[checkpoint]
enabled = true
on_success = true
operations = ["run", "file.write", "file.upload", "aio.exec", "aio.jupyter"]
interval = "5m"
strict = false
EOF
auto_count() {
	allox checkpoint list -o json | jq '[.[] | select(.name | startswith("auto-"))] | length'
}
n0=$(auto_count)
run allox aio exec -- sh -c 'echo auto > /home/gem/auto'
expect_rc 0
[ "$(auto_count)" -eq $((n0 + 1)) ] || fail "aio exec made no checkpoint"
allox checkpoint list -o json | jq -e '[.[] | select(.name | test("^auto-aio-exec-[0-9]{8}T[0-9]{6}Z$"))] | length == 1' \
	>/dev/null || fail "automatic checkpoint name"
run allox run -- sh -c 'exit 3'
expect_rc 3
run allox aio exec -- false
expect_rc 1
[ "$(auto_count)" -eq $((n0 + 1)) ] || fail "a failed operation made a checkpoint"
run allox -v file write /home/gem/w.txt -c hi
expect_rc 0
expect_err_has "checkpoint created:"
[ "$(auto_count)" -eq $((n0 + 2)) ] || fail "file write made no checkpoint"
run allox sandbox list
[ "$(auto_count)" -eq $((n0 + 2)) ] || fail "sandbox list made a checkpoint"
run allox checkpoint watch --interval 1s --count 1 --name-prefix w
expect_rc 0
run allox checkpoint restore latest -o json
expect_rc 0
run allox run -- cat /home/gem/w.txt
printf hi | cmp -s - "$TMP/out" || fail "stdout is not: hi"

t "a failed automatic checkpoint warns, or fails the command when strict"
if chattr +i "$LAYERS" 2>/dev/null; then
	allox session use "$SRC" >/dev/null
	run allox run -- echo done
	expect_rc 0
	expect_out "done"
	expect_err_has "Warning: automatic checkpoint failed after run:"
	allox config set checkpoint.strict true >/dev/null
	run allox run -- echo done
	expect_rc 1
	expect_out "done"
	expect_err_has "automatic checkpoint failed after run"
	chattr -i "$LAYERS"
	run allox run -- echo done
	expect_rc 0
else
	echo "# skipped: chattr +i does not work on $LAYERS's file system"
fi

t "no cgroup is left of a sandbox of this test: ended ones, then all once the engine stops"
expect_clean_stop

done_testing
