#!/bin/sh
# The checkpoint copy of a sandbox's writable layer (src/engine/runtime/layer_copy.c):
# the same tree as `cp -a` makes of every kind of entry an overlay layer
# holds, a too-deep tree handed to cp -a, and clear failures. Needs
# LAYER_COPY (tests/helpers/layer_copy), python3, mkfifo and root (whiteouts
# are character devices, opaque directories trusted.* xattrs).
. "${TESTS_DIR:-tests}/cli/lib.sh"
: "${LAYER_COPY:?LAYER_COPY must point at tests/helpers/layer_copy}"
CMP="${TESTS_DIR:-tests}/cli/tree_compare.py"

S=$TMP/src
mkdir -p "$S/home/gem/sub" "$S/opaque" "$S/ro" "$S/etc"
printf 'hello\n' > "$S/home/gem/a.txt"
head -c 300000 /dev/urandom > "$S/home/gem/big.bin"
: > "$S/home/gem/empty"
truncate -s 10M "$S/home/gem/sparse"
printf 'middle' | dd of="$S/home/gem/sparse" bs=1 seek=5000000 conv=notrunc 2>/dev/null
ln "$S/home/gem/a.txt" "$S/home/gem/sub/hard1"
ln "$S/home/gem/a.txt" "$S/etc/hard2"
ln -s ../a.txt "$S/home/gem/sub/rel-link"
ln -s /nonexistent/target "$S/home/gem/dangling"
mknod "$S/etc/deleted" c 0 0
mkfifo "$S/home/gem/fifo"
setfattr() { python3 -c 'import os, sys; os.setxattr(sys.argv[1], sys.argv[2], sys.argv[3].encode(), follow_symlinks=False)' "$@"; }
setfattr "$S/opaque" trusted.overlay.opaque y
setfattr "$S/home/gem/a.txt" user.note "kept"
setfattr "$S/etc/deleted" trusted.overlay.note "whiteout xattr"
python3 -c 'import os, sys; os.setxattr(sys.argv[1], "user.big", b"x" * 3000)' "$S/home/gem/big.bin"
printf 'x' > "$S/ro/file"
chmod 4755 "$S/home/gem/big.bin"
chmod 0600 "$S/home/gem/a.txt"
chown 1000:1000 "$S/home/gem" "$S/home/gem/a.txt"
chown -h 1234:4321 "$S/home/gem/dangling"
chmod 0555 "$S/ro"
# File capabilities survive only if the owner is set before the xattrs: chown clears them.
if command -v setcap >/dev/null; then
	cp /bin/true "$S/home/gem/capable"
	chown 1000:1000 "$S/home/gem/capable"
	setcap cap_net_raw+ep "$S/home/gem/capable"
fi
touch -h -d '2001-02-03 04:05:06' "$S/home/gem/dangling"
touch -d '2002-03-04 05:06:07.123456789' "$S/home/gem/big.bin" "$S/ro" "$S/home/gem/sub"

t "every kind of entry is copied as cp -a copies it"
cp -a "$S" "$TMP/by-cp"
run "$LAYER_COPY" --tree "$S" "$TMP/by-us"
[ "$rc" = 0 ] || fail "exit $rc"
cp "$TMP/out" "$TMP/by-us.size"
run python3 "$CMP" "$TMP/by-cp" "$TMP/by-us"
[ "$rc" = 0 ] || fail "trees differ"

t "the size it reports is the copy's size on disk, as du counts it (hard links once)"
[ "$(cat "$TMP/by-us.size")" = "$(du -s -B1 "$TMP/by-us" | cut -f1)" ] || fail "reported $(cat "$TMP/by-us.size"), du says $(du -s -B1 "$TMP/by-us")"

t "the copy is the source, entry for entry"
run python3 "$CMP" "$S" "$TMP/by-us"
[ "$rc" = 0 ] || fail "trees differ"

t "a file's capabilities survive the copy (owner set before the xattrs)"
if command -v getcap >/dev/null; then
	getcap "$TMP/by-us/home/gem/capable" | grep -q cap_net_raw || fail "capability lost: $(getcap "$TMP/by-us/home/gem/capable")"
else
	echo "# skipped: no setcap/getcap"
fi

t "a sparse file stays sparse"
blocks=$(stat -c %b "$TMP/by-us/home/gem/sparse")
[ "$blocks" -lt 1000 ] || fail "$blocks blocks for 12 bytes of data"

t "the copy is independent of the source"
printf 'changed\n' > "$S/home/gem/a.txt"
[ "$(cat "$TMP/by-us/home/gem/a.txt")" = hello ] || fail "copy changed with the source"
[ "$(cat "$TMP/by-us/etc/hard2")" = hello ] || fail "hard link changed with the source"

t "a capture leaves out empty top-level directories without xattrs but overlayfs' uuid, and keeps everything else"
mkdir -p "$TMP/layer/usr" "$TMP/layer/srv" "$TMP/layer/opt" "$TMP/layer/etc" "$TMP/layer/top/home/gem/empty" \
	"$TMP/layer/var/tmp" "$TMP/layer/opq"
setfattr "$TMP/layer/opq" trusted.overlay.opaque y
setfattr "$TMP/layer/var/tmp" trusted.overlay.opaque y
# What overlayfs stamps on an upper directory it mounts (Linux 6.6 on).
setfattr "$TMP/layer/srv" trusted.overlay.uuid 0sAAECAwQFBgcICQoLDA0ODw==
setfattr "$TMP/layer/opt" trusted.overlay.uuid 0sAAECAwQFBgcICQoLDA0ODw==
setfattr "$TMP/layer/etc" trusted.overlay.uuid 0sAAECAwQFBgcICQoLDA0ODw==
setfattr "$TMP/layer/etc" user.note kept
run "$LAYER_COPY" "$TMP/layer" "$TMP/layer-copy"
[ "$rc" = 0 ] || fail "exit $rc"
[ "$(cd "$TMP/layer-copy" && ls -A | tr '\n' ' ')" = "etc opq top var " ] || fail "top level: $(ls -A "$TMP/layer-copy")"
[ -d "$TMP/layer-copy/top/home/gem/empty" ] || fail "a nested empty directory was left out"
[ -d "$TMP/layer-copy/var/tmp" ] || fail "an opaque directory was left out"
python3 -c 'import os, sys; sys.exit(os.getxattr(sys.argv[1], "trusted.overlay.opaque") != b"y")' "$TMP/layer-copy/opq" ||
	fail "opaque xattr lost"

# deep TOP N: N nested directories d0000/d0001/... under TOP, a file "leaf" at the bottom.
deep() {
	mkdir -p "$1"
	python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
for i in range(int(sys.argv[2])):
    os.mkdir("d%04d" % i, dir_fd=fd)
    nfd = os.open("d%04d" % i, os.O_RDONLY, dir_fd=fd)
    os.close(fd)
    fd = nfd
with open(os.open("leaf", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as f:
    f.write("deep\n")
' "$1" "$2"
}

t "a tree that runs the copy out of fds is handed to cp -a, and comes out whole"
deep "$TMP/deep" 100
run sh -c 'ulimit -n 64 && exec "$@"' sh "$LAYER_COPY" --tree "$TMP/deep" "$TMP/deep-tree"
[ "$rc" = 3 ] || fail "exit $rc, expected 3 (out of fds)"
grep -q "Too many open files" "$TMP/err" || fail "no reason given"
run sh -c 'ulimit -n 64 && exec "$@"' sh "$LAYER_COPY" "$TMP/deep" "$TMP/deep-copy"
[ "$rc" = 0 ] || fail "exit $rc"
[ "$(cat "$TMP/out")" = "$(du -s -B1 "$TMP/deep-copy" | cut -f1)" ] || fail "size: reported $(cat "$TMP/out"), du says $(du -s -B1 "$TMP/deep-copy")"
run python3 "$CMP" "$TMP/deep" "$TMP/deep-copy"
[ "$rc" = 0 ] || fail "trees differ"

t "a path beyond PATH_MAX fails with one clear line, as with cp -a"
deep "$TMP/deeper" 900
run "$LAYER_COPY" "$TMP/deeper" "$TMP/deeper-copy"
[ "$rc" = 1 ] || fail "exit $rc"
[ "$(wc -l < "$TMP/err")" = 1 ] || fail "not one line"
grep -q "^layer_copy: cannot copy an entry of \.\.\..*/d0[0-9]*: File name too long$" "$TMP/err" || fail "message"

t "a missing source is one clear error"
run "$LAYER_COPY" "$TMP/nope" "$TMP/nope-copy"
[ "$rc" = 1 ] || fail "exit $rc"
grep -q "layer_copy: cannot open the layer .: No such file or directory" "$TMP/err" || fail "message"

t "an existing destination is refused, not merged into"
mkdir "$TMP/exists"
run "$LAYER_COPY" "$S" "$TMP/exists"
[ "$rc" = 1 ] || fail "exit $rc"
grep -q "cannot create the copy .: File exists" "$TMP/err" || fail "message"
[ -z "$(ls -A "$TMP/exists")" ] || fail "wrote into it"

done_testing
