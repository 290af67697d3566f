# Shared helpers for the shell tests: each test runs the real binary in a
# private ALLOX_HOME and checks what users see (bytes, exit codes, files).
set -u

: "${ALLOX_CLI:?ALLOX_CLI must point at the allox-cli binary}"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/allox-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export ALLOX_HOME="$TMP/home"
export HOME="$TMP/user"
mkdir -p "$HOME"
unset ALLOX_API_KEY ALLOX_DOMAIN ALLOX_PROTOCOL ALLOX_REQUEST_TIMEOUT OPEN_SANDBOX_API_KEY OPEN_SANDBOX_DOMAIN NO_COLOR COLUMNS
export LC_ALL=C.UTF-8

cases=0
failed_cases=0
case_failed=0
name=""

allox() {
	"$ALLOX_CLI" "$@"
}

# run CMD...: run it, keep stdout in $TMP/out, stderr in $TMP/err, status in $rc.
run() {
	"$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
}

fail() {
	echo "FAIL: $name: $*" >&2
	echo "--- stdout" >&2; cat "$TMP/out" >&2
	echo "--- stderr" >&2; cat "$TMP/err" >&2
	[ "$case_failed" -eq 1 ] || failed_cases=$((failed_cases + 1))
	case_failed=1
}

# t NAME: start a test case.
t() {
	name=$1
	cases=$((cases + 1))
	case_failed=0
}

expect_rc() {
	[ "$rc" -eq "$1" ] || fail "exit status $rc, expected $1"
}

expect_out() {
	printf '%s\n' "$1" | cmp -s - "$TMP/out" || fail "stdout differs from: $1"
}

expect_err() {
	printf '%s\n' "$1" | cmp -s - "$TMP/err" || fail "stderr differs from: $1"
}

expect_out_has() {
	grep -qF -- "$1" "$TMP/out" || fail "stdout lacks: $1"
}

expect_err_has() {
	grep -qF -- "$1" "$TMP/err" || fail "stderr lacks: $1"
}

expect_empty_out() {
	[ ! -s "$TMP/out" ] || fail "stdout not empty"
}

done_testing() {
	echo "$((cases - failed_cases)) passed, $failed_cases failed"
	[ "$failed_cases" -eq 0 ]
}
