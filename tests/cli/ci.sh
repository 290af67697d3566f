#!/bin/sh
# CI (.ci/run) runs exactly the test command README.md gives (the second
# command of its first sh block), and that command runs the sanitizer suite.
. "${TESTS_DIR:-tests}/cli/lib.sh"
: "${TESTS_DIR:?}"
SRC=$(cd "$TESTS_DIR/.." && pwd)

t "README's test command is .ci/run's command"
awk '/^```sh$/ { n++; next } /^```$/ { if (n == 1) exit } n == 1 && /^[^#]/ && NF' "$SRC/README.md" |
	sed -n 2p >"$TMP/readme"
grep -v '^#' "$SRC/.ci/run" | tail -1 >"$TMP/ci"
[ -s "$TMP/readme" ] || fail "no test command found in README.md"
cmp -s "$TMP/readme" "$TMP/ci" || fail "README: '$(cat "$TMP/readme")' .ci/run: '$(cat "$TMP/ci")'"

t "the test command runs the suite, then the sanitizer suite in its own build tree"
grep -q 'make -j2 check VERBOSE=1 && make -j2 check-sanitizers-vpath' "$TMP/readme" ||
	fail "no sanitizer run: $(cat "$TMP/readme")"
grep -q '^check-sanitizers-vpath:' "$SRC/Makefile.am" || fail "no check-sanitizers-vpath target"

done_testing
