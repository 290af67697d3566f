# Shared by the shell tests of allox-agent (agent.sh, agent_aio.sh,
# agent_execd.sh) and of the sandbox runtime (runtime.sh): test cases and
# their tally, polling, process checks, and starting an agent on a socket
# bound by tests/helpers/listen_fd. Sourced; it only defines functions and
# variables. The sourcing test defines:
#   fail_context    what to print after a FAIL line (the agent's stderr, the
#                   last body, ...); may print nothing
#   cleanup         (with agent_test_init) what to stop when the test exits
#                   ($TMP itself goes afterwards)
# Helper variables are prefixed la_ so that they never clobber a test's own.
# shellcheck shell=sh disable=SC2034,SC2154 # variables shared with the test

cases=0
failed_cases=0
case_failed=0
name=""
# until_true's bounds are multiplied by this (slow runs, e.g. under valgrind).
POLL_SCALE=1

# agent_test_init NAME: a fresh $TMP (NAME.XXXXXX under $TMPDIR), $HOME in
# it, a UTF-8 locale, and the traps: on exit the test's cleanup, then $TMP
# goes; INT and TERM exit 130.
agent_test_init() {
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
	trap 'cleanup; rm -rf "$TMP"' EXIT
	trap 'exit 130' INT TERM
	export LC_ALL=C.UTF-8
	export HOME="$TMP/home"
	mkdir -p "$HOME"
}

# t NAME: start a test case.
t() {
	name=$1
	cases=$((cases + 1))
	case_failed=0
}

# fail MESSAGE...: the current case failed (it counts once in the tally).
fail() {
	echo "FAIL: $name: $*" >&2
	fail_context
	[ "$case_failed" -eq 1 ] || failed_cases=$((failed_cases + 1))
	case_failed=1
}

# summary: the tally line; true when no case failed. The test's last command.
summary() {
	echo "$((cases - failed_cases)) passed, $failed_cases failed"
	[ "$failed_cases" -eq 0 ]
}

# wait_for TENTHS CMD...: retry CMD every 0.1 s, at most TENTHS times
# (times $POLL_SCALE); false if it never held.
wait_for() {
	la_tries=$(($1 * POLL_SCALE))
	shift
	while [ "$la_tries" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		la_tries=$((la_tries - 1))
	done
	return 1
}

# until_true TENTHS CMD...: wait_for, then CMD once more (its status is the
# answer).
until_true() {
	la_tenths=$1
	shift
	wait_for "$la_tenths" "$@" || "$@"
}

# alive PID: the process exists and is not a zombie.
alive() {
	[ -r "/proc/$1/stat" ] || return 1
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
	[ -n "$st" ] && [ "$st" != Z ]
}

# dead PID: it has exited (a zombie counts: only wait can tell more).
dead() {
	! alive "$1"
}

now_ms() {
	date +%s%3N
}

# last_body TITLE [BYTES]: the last reply body ($TMP/body), if there is one,
# under "--- TITLE" on stderr; only its first BYTES bytes if given.
last_body() {
	[ -f "$TMP/body" ] || return 0
	echo "--- $1" >&2
	if [ -n "${2:-}" ]; then
		head -c "$2" "$TMP/body" >&2
	else
		cat "$TMP/body" >&2
	fi
	echo >&2
}

expect_code() {
	[ "$code" = "$1" ] || fail "HTTP $code, expected $1"
}

# jq_body FILTER [JQ-ARGS...]: FILTER holds for the body in $TMP/body.
jq_body() {
	jq -e "$@" "$TMP/body" >/dev/null 2>&1 || fail "body fails: $*"
}

# launch_agent WRAP DIR ERR ID [ARGS...]: start $ALLOX_AGENT for sandbox ID
# with token $TOKEN on a socket $ALLOX_LISTEN_FD binds, which writes the port
# to DIR/port; the status file is DIR/run/entrypoint.json, stderr goes to
# ERR, ARGS (e.g. -- ENTRYPOINT...) follow. WRAP, split on purpose, may put a
# command such as unshare or valgrind in front (empty: none). Sets PID (the
# wrapper's, with WRAP).
launch_agent() {
	la_wrap=$1
	la_dir=$2
	la_err=$3
	la_id=$4
	shift 4
	# shellcheck disable=SC2086
	"$ALLOX_LISTEN_FD" "$la_dir/port" --token "$TOKEN" $la_wrap "$ALLOX_AGENT" --listen-fd 3 --token-fd 4 \
		--sandbox-id "$la_id" --status-file "$la_dir/run/entrypoint.json" "$@" 2>"$la_err" &
	PID=$!
}

# agent_port TENTHS DIR: wait up to TENTHS for the port launch_agent's DIR
# gets; sets PORT (empty, and false, when it never came).
agent_port() {
	PORT=""
	until_true "$1" test -s "$2/port" || return 1
	PORT=$(cat "$2/port")
}

# agent_ping TENTHS [CURL-ARGS...]: wait up to TENTHS until the agent on
# $PORT answers GET /ping.
agent_ping() {
	la_ping_tenths=$1
	shift
	until_true "$la_ping_tenths" curl -s -o /dev/null "$@" -H "X-EXECD-ACCESS-TOKEN: $TOKEN" \
		"http://127.0.0.1:$PORT/ping"
}
