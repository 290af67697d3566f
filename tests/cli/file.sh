#!/bin/sh
# file cat | write | upload | download against a real local engine in a private ALLOX_HOME.
. "${TESTS_DIR:-tests}/cli/lib.sh"
. "${TESTS_DIR:-tests}/cli/engine_lib.sh"

# No staging leftovers (.NAME.RANDOM.part) in DIR.
no_parts() {
	left=$(find "$1" -maxdepth 1 -name '.*.part')
	[ -z "$left" ] || fail "staging left: $left"
}

sum() {
	sha256sum < "$1" | cut -d' ' -f1
}

W="$TMP/work"
mkdir -p "$W"
cd "$W" || exit 1

# Remote fixtures the file commands cannot make themselves: a symlink pointing
# out of a tree, and a huge sparse file to interrupt.
setup='mkdir -p /home/gem/linked/sub && echo inside > /home/gem/linked/sub/f && ln -s /etc /home/gem/linked/link &&
truncate -s 16G /home/gem/huge && echo ready > /home/gem/ready; exec sleep 100000'
run allox sandbox create --skip-health-check --entrypoint /bin/sh --entrypoint -c --entrypoint "$setup" -o json
ID=$(jq -r .id "$TMP/out")
[ -n "$ID" ] && [ "$ID" != null ] || { cat "$TMP/err" >&2; echo "cannot create a sandbox" >&2; exit 1; }
LAYER="$STATE/$ID/writable/layer/top/home/gem"
ready() {
	[ "$("$ALLOX_CLI" file cat /home/gem/ready 2>/dev/null)" = ready ]
}
wait_until 15 ready || echo "warning: execd file routes do not answer yet" >&2

t "write --content, cat raw and json"
run allox file write /home/gem/hello.txt --content "hello world" -o json
expect_rc 0
expect_out "{
  \"sandbox_id\": \"$ID\",
  \"path\": \"/home/gem/hello.txt\",
  \"bytes\": 11
}"
run allox file cat /home/gem/hello.txt
expect_rc 0
printf 'hello world' | cmp -s - "$TMP/out" || fail "cat raw is not verbatim"
run allox file cat "$ID" /home/gem/hello.txt -o json
expect_rc 0
jq -e --arg id "$ID" 'keys_unsorted == ["sandbox_id","path","content"] and .sandbox_id == $id and .path == "/home/gem/hello.txt" and .content == "hello world"' "$TMP/out" >/dev/null || fail "cat json"

t "write from stdin: a pipe and a file, bytes verbatim"
printf 'line 1\nline 2\n\0binary\377' > "$TMP/stdin.bin"
# shellcheck disable=SC2002 # a pipe, not a file, is the point
cat "$TMP/stdin.bin" | allox file write /home/gem/piped.bin -o json >"$TMP/out" 2>"$TMP/err"
rc=$?
expect_rc 0
jq -e '.bytes == 22' "$TMP/out" >/dev/null || fail "piped bytes"
run allox file cat /home/gem/piped.bin
cmp -s "$TMP/stdin.bin" "$TMP/out" || fail "piped content differs"
run allox file write /home/gem/redirected.bin -o json < "$TMP/stdin.bin"
jq -e '.bytes == 22' "$TMP/out" >/dev/null || fail "redirected bytes"
run allox file cat /home/gem/redirected.bin
cmp -s "$TMP/stdin.bin" "$TMP/out" || fail "redirected content differs"

t "write with neither --content nor piped input"
if script -qec true /dev/null >/dev/null 2>&1; then
	script -qec "'$ALLOX_CLI' file write /home/gem/x.txt" /dev/null >"$TMP/out" 2>&1
	rc=$?
	expect_rc 2
	expect_out_has "Provide --content or pipe content via stdin."
fi

t "cat json refuses bytes that are not utf-8"
run allox file cat /home/gem/piped.bin -o json
expect_rc 1
expect_err_has "not valid utf-8"

t "50 MiB of random bytes round trip"
head -c 52428800 /dev/urandom > "$TMP/big.bin"
run allox file upload "$TMP/big.bin" /home/gem/big.bin --mode 600 -o json
expect_rc 0
jq -e --arg id "$ID" --arg lp "$(realpath "$TMP/big.bin")" '.sandbox_id == $id and .local_path == $lp and .remote_path == "/home/gem/big.bin" and .bytes == 52428800 and .files == 1 and .directories == 0' "$TMP/out" >/dev/null || fail "upload output"
jq -e 'keys_unsorted == ["sandbox_id","local_path","remote_path","bytes","files","directories"]' "$TMP/out" >/dev/null || fail "upload key order"
[ "$(stat -c %a "$LAYER/big.bin" 2>/dev/null)" = 600 ] || fail "remote mode"
run allox file download /home/gem/big.bin "$W/down/nested/big.bin" -o json
expect_rc 0
jq -e '.bytes == 52428800 and .files == 1 and .directories == 0 and .remote_path == "/home/gem/big.bin"' "$TMP/out" >/dev/null || fail "download output"
jq -e 'keys_unsorted == ["sandbox_id","remote_path","local_path","bytes","files","directories"]' "$TMP/out" >/dev/null || fail "download key order"
[ "$(sum "$TMP/big.bin")" = "$(sum "$W/down/nested/big.bin")" ] || fail "sha256 differs"
no_parts "$W/down/nested"

t "constant memory: peak RSS of a 50 MiB download stays small"
if [ -z "${ALLOX_TEST_NO_RSS:-}" ] && /usr/bin/time -f %M true >/dev/null 2>&1; then
	/usr/bin/time -o "$TMP/rss" -f %M "$ALLOX_CLI" file download /home/gem/big.bin "$W/rss.bin" >/dev/null 2>&1 || fail "download failed"
	[ "$(cat "$TMP/rss")" -lt 16384 ] || fail "peak RSS $(cat "$TMP/rss") KiB"
	/usr/bin/time -o "$TMP/rss" -f %M "$ALLOX_CLI" file upload "$TMP/big.bin" /home/gem/rss.bin >/dev/null 2>&1 || fail "upload failed"
	[ "$(cat "$TMP/rss")" -lt 16384 ] || fail "upload peak RSS $(cat "$TMP/rss") KiB"
fi

t "existing target: untouched without --force, replaced with it"
printf 'precious' > "$W/existing"
run allox file download /home/gem/hello.txt "$W/existing"
expect_rc 1
expect_err_has "Local path already exists: $W/existing. Use --force to overwrite it."
[ "$(cat "$W/existing")" = precious ] || fail "target changed"
run allox file download /home/gem/hello.txt "$W/existing" --force -o json
expect_rc 0
[ "$(cat "$W/existing")" = "hello world" ] || fail "not overwritten"
no_parts "$W"

t "missing remote file: exit 1, nothing local"
run allox file download /home/gem/no-such-file "$W/missing/deep/file"
expect_rc 1
expect_err_has "FILE_NOT_FOUND"
[ ! -e "$W/missing" ] || fail "local leftovers: $(find "$W/missing")"
run allox file download /home/gem/no-such-file "$W/missing-file"
expect_rc 1
[ ! -e "$W/missing-file" ] || fail "local file created"
no_parts "$W"
run allox file cat /home/gem/no-such-file
expect_rc 1
expect_empty_out

t "mode parsing"
printf 'm' > "$TMP/m"
for m in 644 0644 0o644 0O644; do
	run allox file upload "$TMP/m" "/home/gem/mode-$m" --mode "$m"
	expect_rc 0
	[ "$(stat -c %a "$LAYER/mode-$m" 2>/dev/null)" = 644 ] || fail "--mode $m gave $(stat -c %a "$LAYER/mode-$m" 2>&1)"
done
run allox file upload "$TMP/m" /home/gem/mode-493 --mode 493
expect_rc 2
expect_err_has "must be an octal permission such as 644, 0755, or 0o600"
[ ! -e "$LAYER/mode-493" ] || fail "uploaded despite a bad mode"
run allox file upload "$TMP/m" /home/gem/mode-x --directory-mode 8
expect_rc 2
run allox file upload "$TMP/m" /home/gem/mode-x --mode 017777
expect_rc 2

t "recursive round trip: nested and empty directories, odd names"
T="$W/tree"
mkdir -p "$T/sub/deeper" "$T/empty" "$T/sub/empty too" "$T/with space" "$T/ünïcödé"
printf 'a' > "$T/a.txt"
printf 'b' > "$T/with space/b file.txt"
printf 'c' > "$T/ünïcödé/-leading-dash"
printf 'd' > "$T/sub/deeper/d"
head -c 100000 /dev/urandom > "$T/sub/random.bin"
run allox file upload "$T" /home/gem/tree --recursive -o json
expect_rc 0
jq -e '.files == 5 and .directories == 7 and .bytes == 100004 and .remote_path == "/home/gem/tree"' "$TMP/out" >/dev/null || fail "recursive upload counts"
[ -d "$LAYER/tree/sub/empty too" ] || fail "empty dir not created remotely"
[ "$(stat -c %a "$LAYER/tree/sub" 2>/dev/null)" = 755 ] || fail "directory mode"
run allox file download /home/gem/tree "$W/tree-copy" -r -o json
expect_rc 0
jq -e '.files == 5 and .directories == 7 and .bytes == 100004' "$TMP/out" >/dev/null || fail "recursive download counts"
diff -r "$T" "$W/tree-copy" >/dev/null || fail "trees differ"
[ -d "$W/tree-copy/empty" ] && [ -d "$W/tree-copy/sub/empty too" ] || fail "empty dirs lost"
no_parts "$W"

t "recursive download --force merges into an existing tree"
printf 'old' > "$W/tree-copy/a.txt"
printf 'mine' > "$W/tree-copy/local-only"
run allox file download /home/gem/tree "$W/tree-copy" -r
expect_rc 1
expect_err_has "Use --force"
run allox file download /home/gem/tree "$W/tree-copy" -r --force
expect_rc 0
[ "$(cat "$W/tree-copy/a.txt")" = a ] || fail "file not replaced"
[ "$(cat "$W/tree-copy/local-only")" = mine ] || fail "local-only file lost"
no_parts "$W"

t "a remote symlink pointing outside: refused, nothing written"
run allox file download /home/gem/linked "$W/linked" -r
expect_rc 1
expect_err_has "Symbolic links are not supported: /home/gem/linked/link"
[ ! -e "$W/linked" ] || fail "target created"
no_parts "$W"
run allox file download /home/gem/tree "$W/not-recursive"
expect_rc 1
expect_err "Error: Remote path is a directory: /home/gem/tree. Use --recursive to download it."
[ ! -e "$W/not-recursive" ] || fail "target created"
run allox file download /home/gem/hello.txt "$W/not-a-dir" -r
expect_rc 1
expect_err_has "Remote path is not a directory: /home/gem/hello.txt"
[ ! -e "$W/not-a-dir" ] || fail "target created"

t "local checks come first, in the spec's words"
ln -s "$TMP/m" "$W/link"
run allox file upload "$W/link" /home/gem/link
expect_rc 1
expect_err "Error: Symbolic links are not supported: $W/link"
run allox file upload "$W/link" /home/gem/link --follow-symlinks -o json
expect_rc 0
jq -e '.bytes == 1' "$TMP/out" >/dev/null || fail "--follow-symlinks"
ln -s "$W/nowhere" "$W/dangling"
run allox file upload "$W/dangling" /home/gem/x
expect_rc 1
expect_err "Error: Local file not found: $W/dangling"
run allox file upload "$W/nope" /home/gem/x
expect_err "Error: Local file not found: $W/nope"
run allox file upload "$T" /home/gem/x
expect_err "Error: Local path is a directory: $T. Use --recursive to upload it."
run allox file upload "$TMP/m" /home/gem/x -r
expect_err "Error: Recursive upload requires a directory: $TMP/m"
run allox file upload /dev/null /home/gem/x
expect_err "Error: Local path is not a regular file: /dev/null"
ln -s /etc "$T/sub/link"
run allox file upload "$T" /home/gem/tree2 -r
expect_rc 1
expect_err "Error: Symbolic links are not supported: $T/sub/link"
[ ! -e "$LAYER/tree2" ] || fail "partial remote tree"
rm "$T/sub/link"
run allox file download /home/gem/hello.txt "$W/link" --force
expect_err "Error: Symbolic links are not supported: $W/link"
run allox file download /home/gem/hello.txt "$T" --force
expect_err "Error: Local path is not a regular file: $T"
run allox file download /home/gem/tree "$TMP/m" -r --force
expect_err "Error: Recursive download target is not a directory: $TMP/m"
run allox file download /home/gem/hello.txt "$W/x" --chunk-size 100
expect_rc 2
run allox file upload "$TMP/m"
expect_rc 2

t "Ctrl-C aborts a download, exit 130, nothing partial"
# -k: should SIGINT be ignored (a background job), don't copy 16 GiB.
timeout -k 15 --preserve-status -s INT 1 "$ALLOX_CLI" file download /home/gem/huge "$W/huge" >"$TMP/out" 2>"$TMP/err"
rc=$?
expect_rc 130
[ ! -e "$W/huge" ] || fail "target created"
no_parts "$W"
timeout -k 15 --preserve-status -s INT 1 "$ALLOX_CLI" file download /home/gem/huge "$W/huge-tree/f" >"$TMP/out" 2>"$TMP/err"
rc=$?
expect_rc 130
[ ! -e "$W/huge-tree" ] || fail "parents left"

t "a second SIGINT right after the first does not cut the cleanup short"
# timeout(1) signals the process and then its group: two SIGINTs at once.
env --default-signal=INT "$ALLOX_CLI" file download /home/gem/huge "$W/twice/f" >"$TMP/out" 2>"$TMP/err" &
pid=$!
wait_until 10 test -e "$W/twice" || fail "download did not start"
kill -INT $pid
kill -INT $pid
wait $pid
rc=$?
expect_rc 130
expect_err_has "Interrupted"
[ ! -e "$W/twice" ] || fail "parents left"
no_parts "$W"

t "no progress bar when stderr is not a terminal"
run allox file download /home/gem/big.bin "$W/quiet.bin"
expect_rc 0
[ ! -s "$TMP/err" ] || fail "stderr not empty"

allox sandbox kill "$ID" >/dev/null 2>&1
t "no cgroup is left of a sandbox of this test: ended ones, then all once the engine stops"
expect_clean_stop

done_testing
