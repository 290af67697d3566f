#!/bin/sh
# Shell completion, run for real: bash (with and without bash-completion),
# zsh and fish complete every group, verb, option and -o value of the
# command table (allox-cli __commands) and nothing else, profile names,
# durations, local paths where a local path is expected, and sandbox and
# checkpoint ids of a real engine, from the id cache or, when the cache is
# stale, from the running engine, never starting one.
. "${TESTS_DIR:-tests}/cli/lib.sh"
. "${TESTS_DIR:-tests}/cli/engine_lib.sh"
: "${TESTS_DIR:?}"
SRC=$(cd "$TESTS_DIR/.." && pwd)
COMPLETIONS="$SRC/completions"
BIN=$(cd "$(dirname "$ALLOX_CLI")" && pwd)
PATH="$BIN:$PATH"
export PATH ALLOX_ENGINE ALLOX_AGENT
export LC_ALL=C

mkdir -p "$ALLOX_HOME" "$TMP/work/subdir"
: >"$ALLOX_HOME/dev.toml"
: >"$ALLOX_HOME/staging.toml"
: >"$TMP/work/data.txt"
allox __commands >"$TMP/commands.json"
C="$TMP/commands.json"

# The static queries and what every shell must answer, in the drivers' format.
jq -r '
  def block($q; $c): "== \($q)|", ($c | unique | .[]);
  block("allox-cli "; [.groups[].name] + ["help"]),
  block("allox-cli --"; [.global_options[] | "--" + .long]),
  (.groups[] | select(any(.verbs[]; .name != "")) | block("allox-cli \(.name) "; [.verbs[].name | split(" ")[0]])),
  (.groups[].verbs[] | (.group + (if .name == "" then "" else " " + .name end)) as $v
    | block("allox-cli \($v) --";
        [.options[] | "--" + .long] + (if (.formats | length) > 0 then ["--output"] else [] end) + ["--help"]),
      (if (.formats | length) > 0 then block("allox-cli \($v) -o "; .formats) else empty end)),
  block("allox-cli --profile "; ["dev", "staging"]),
  block("allox-cli sandbox create -t "; ["30s", "5m", "30m", "1h", "2h", "none"]),
  block("allox-cli checkpoint watch --interval "; ["30s", "5m", "30m", "1h", "2h"]),
  block("allox-cli aio jupyter "; ["run"]),
  block("allox-cli config set checkpoint.s"; ["checkpoint.strict"]),
  block("allox-cli --protocol "; ["http", "https"])
' "$C" >"$TMP/expect"
grep '^== ' "$TMP/expect" | sed 's/^== //' >"$TMP/queries"

# answers SHELL: run the static queries in SHELL's driver into $TMP/got.
answers() {
	case $1 in
	bash) bash "$TESTS_DIR/cli/completion.bash" "$COMPLETIONS/allox-cli.bash" ;;
	bash-completion) WITH_BASH_COMPLETION=1 bash "$TESTS_DIR/cli/completion.bash" "$COMPLETIONS/allox-cli.bash" ;;
	zsh) zsh -f "$TESTS_DIR/cli/completion.zsh" "$COMPLETIONS/_allox-cli" ;;
	fish) fish --no-config "$TESTS_DIR/cli/completion.fish" "$COMPLETIONS/allox-cli.fish" ;;
	esac
}

# ask SHELL QUERY...: the candidates for each query (drivers' format) in $TMP/got.
ask() {
	sh=$1
	shift
	printf '%s\n' "$@" | answers "$sh" >"$TMP/got" 2>"$TMP/got.err"
}

shells="bash bash-completion"
command -v zsh >/dev/null 2>&1 && shells="$shells zsh"
command -v fish >/dev/null 2>&1 && shells="$shells fish"
[ -r /usr/share/bash-completion/bash_completion ] || shells=$(echo "$shells" | sed 's/bash-completion//')

t "bash registers the completion function"
run bash -c ". '$COMPLETIONS/allox-cli.bash' && complete -p allox-cli"
expect_rc 0
expect_out "complete -F _allox_cli allox-cli"

if command -v zsh >/dev/null 2>&1; then
	t "zsh's compinit finds _allox-cli in fpath by its #compdef line"
	run zsh -f -c "fpath=('$COMPLETIONS' \$fpath); autoload -Uz compinit; compinit -u -d '$TMP/zcompdump'; print -r -- \$_comps[allox-cli]"
	expect_rc 0
	expect_out "_allox-cli"
fi

for sh in $shells; do
	t "$sh completes every group, verb, option and -o value of the table, and nothing else"
	answers "$sh" <"$TMP/queries" >"$TMP/got" 2>"$TMP/got.err"
	if ! diff -u "$TMP/expect" "$TMP/got" >"$TMP/diff"; then
		echo "FAIL: $name" >&2
		cat "$TMP/diff" "$TMP/got.err" >&2
		failed_cases=$((failed_cases + 1))
	fi
done

# expect_answer Q CANDIDATES...: the last ask gave exactly these for query Q.
expect_answer() {
	q=$1
	shift
	awk -v q="== $q" '$0 == q { on = 1; next } /^== / { on = 0 } on' "$TMP/got" >"$TMP/answer"
	if [ $# -eq 0 ]; then
		: >"$TMP/want"
	else
		printf '%s\n' "$@" | sort -u >"$TMP/want"
	fi
	if ! cmp -s "$TMP/want" "$TMP/answer"; then
		echo "FAIL: $name: '$q' gave:" >&2
		cat "$TMP/answer" "$TMP/got.err" >&2
		echo "--- expected:" >&2
		cat "$TMP/want" >&2
		[ "$case_failed" -eq 1 ] || failed_cases=$((failed_cases + 1))
		case_failed=1
	fi
}

# Paths: each shell completes them its own way.
for sh in $shells; do
	t "$sh completes local paths for file upload LOCAL, aio jupyter run -f and download LOCAL, not remote ones"
	ask "$sh" "allox-cli file upload $TMP/work/da|" "allox-cli aio jupyter run -f $TMP/work/da|" \
		"allox-cli file download /remote $TMP/work/da|" "allox-cli file cat $TMP/work/da|"
	case $sh in
	zsh)
		expect_answer "allox-cli file upload $TMP/work/da|" "<files>"
		expect_answer "allox-cli aio jupyter run -f $TMP/work/da|" "<files>"
		expect_answer "allox-cli file download /remote $TMP/work/da|" "<files>"
		;;
	*)
		expect_answer "allox-cli file upload $TMP/work/da|" "$TMP/work/data.txt"
		expect_answer "allox-cli aio jupyter run -f $TMP/work/da|" "$TMP/work/data.txt"
		expect_answer "allox-cli file download /remote $TMP/work/da|" "$TMP/work/data.txt"
		;;
	esac
	# PATH of file cat is inside the sandbox: no local files.
	expect_answer "allox-cli file cat $TMP/work/da|"
done

t "sandbox create fills the id cache, and every shell offers the id"
run allox sandbox create -o json
expect_rc 0
sid=$(jq -r .id "$TMP/out")
[ -n "$sid" ] && [ "$sid" != null ] || fail "no sandbox id"
cat "$ALLOX_HOME/cache/ids.json" "$ALLOX_HOME/cache/ids.log" 2>/dev/null | grep -qF "\"$sid\"" || fail "the cache lacks $sid"
for sh in $shells; do
	ask "$sh" "allox-cli sandbox get |" "allox-cli session use ${sid%%-*}|" "allox-cli run |" \
		"allox-cli checkpoint restore --source-sandbox |"
	expect_answer "allox-cli sandbox get |" "$sid"
	expect_answer "allox-cli session use ${sid%%-*}|" "$sid"
	expect_answer "allox-cli run |" "$sid"
	expect_answer "allox-cli checkpoint restore --source-sandbox |" "$sid"
done

t "a command that changes no id leaves the cache files alone"
cache_sum() { cat "$ALLOX_HOME/cache/ids.json" "$ALLOX_HOME/cache/ids.log" 2>/dev/null | cksum; }
before=$(cache_sum)
run allox sandbox get "$sid"
expect_rc 0
[ "$(cache_sum)" = "$before" ] || fail "rewritten by sandbox get"
run allox sandbox pause "$sid"
expect_rc 0
[ "$(cache_sum)" != "$before" ] || fail "not written when the state changed"
tail -n 1 "$ALLOX_HOME/cache/ids.log" | jq -e --arg id "$sid" '.op == "put_sandbox" and .id == $id and (.state | ascii_downcase) == "paused"' >/dev/null ||
	fail "state not kept: $(tail -n 1 "$ALLOX_HOME/cache/ids.log")"
run allox sandbox resume "$sid"
expect_rc 0

t "a create is appended to the journal; a listing folds the journal into ids.json"
run allox sandbox list
expect_rc 0
[ ! -s "$ALLOX_HOME/cache/ids.log" ] || fail "journal not emptied by the listing: $(cat "$ALLOX_HOME/cache/ids.log")"
ino=$(stat -c %i "$ALLOX_HOME/cache/ids.json")
json=$(cksum <"$ALLOX_HOME/cache/ids.json")
run allox checkpoint create --name journaled -o json
expect_rc 0
jid=$(jq -r .id "$TMP/out")
[ "$(stat -c %i "$ALLOX_HOME/cache/ids.json")" = "$ino" ] && [ "$(cksum <"$ALLOX_HOME/cache/ids.json")" = "$json" ] ||
	fail "ids.json rewritten for one create"
grep -qF "\"$jid\"" "$ALLOX_HOME/cache/ids.log" || fail "not in the journal"
run allox __complete checkpoint-ids
expect_out "$(printf '%s\tjournaled' "$jid")"
run allox checkpoint list --all
expect_rc 0
[ ! -s "$ALLOX_HOME/cache/ids.log" ] || fail "journal not emptied"
grep -qF "\"$jid\"" "$ALLOX_HOME/cache/ids.json" || fail "not folded into ids.json"
run allox checkpoint delete "$jid"
expect_rc 0
run allox __complete checkpoint-ids
expect_empty_out

t "checkpoint create adds its id; restore also offers latest, delete does not"
run allox checkpoint create --name v1 -o json
expect_rc 0
cid=$(jq -r .id "$TMP/out")
for sh in $shells; do
	ask "$sh" "allox-cli checkpoint restore |" "allox-cli checkpoint delete |"
	expect_answer "allox-cli checkpoint restore |" "$cid" latest
	expect_answer "allox-cli checkpoint delete |" "$cid"
done
run allox __complete checkpoint-ids
expect_out "$(printf '%s\tv1' "$cid")"

t "a missing or stale cache is refreshed from the running engine"
rm -f "$ALLOX_HOME/cache/ids.json" "$ALLOX_HOME/cache/ids.log"
run allox __complete sandbox-ids
expect_rc 0
expect_out "$(printf '%s\tRunning' "$sid")"
run allox __complete checkpoint-ids
expect_out "$(printf '%s\tv1' "$cid")"
# A sandbox the cache never saw (made behind its back) appears once the list is stale.
jq '.sandboxes = [] | .sandboxes_at = 0' "$ALLOX_HOME/cache/ids.json" >"$TMP/c" && cp "$TMP/c" "$ALLOX_HOME/cache/ids.json"
run allox __complete sandbox-ids
expect_out "$(printf '%s\tRunning' "$sid")"
# A fresh list is trusted as it is (no server round trip).
jq '.sandboxes = [] | .sandboxes_at = (now | floor)' "$ALLOX_HOME/cache/ids.json" >"$TMP/c" && cp "$TMP/c" "$ALLOX_HOME/cache/ids.json"
run allox __complete sandbox-ids
expect_empty_out

t "sandbox kill and checkpoint delete take their ids out"
run allox checkpoint delete "$cid"
expect_rc 0
run allox sandbox kill "$sid"
expect_rc 0
run allox __complete sandbox-ids
expect_empty_out
run allox __complete checkpoint-ids
expect_empty_out

t "completion never starts the engine"
gone() { ! alive "$1"; }
pid=$(engine_pid)
stop_engine
[ -z "$pid" ] || wait_until 10 gone "$pid" || fail "the engine did not stop"
rm -f "$ALLOX_HOME/cache/ids.json" "$ALLOX_HOME/cache/ids.log" "$ALLOX_HOME/run/engine.pid"
for sh in $shells; do
	ask "$sh" "allox-cli sandbox get |"
	expect_answer "allox-cli sandbox get |"
done
run allox __complete line -- sandbox kill ""
expect_rc 0
expect_out ":none"
[ ! -e "$ALLOX_HOME/run/engine.pid" ] || fail "an engine was started"

t "__complete rejects an unknown kind with a usage error"
run allox __complete colours
expect_rc 2
expect_err_has "Usage: allox-cli __complete"

t "no cgroup is left of a sandbox of this test: ended ones, then all once the engine stops"
expect_clean_stop

done_testing
