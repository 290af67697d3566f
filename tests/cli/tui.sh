#!/bin/sh
# The allox> screen in a real terminal: tmux on a private socket (-L, no
# config) at a fixed size, driven with send-keys and read with capture-pane,
# polling with generous timeouts. Also the screen dump (ALLOX_TUI_DUMP) and
# plain mode (--plain, TERM=dumb).
. "${TESTS_DIR:-tests}/cli/lib.sh"
. "${TESTS_DIR:-tests}/cli/engine_lib.sh"

command -v tmux >/dev/null 2>&1 || { echo "tmux not installed: skipped"; exit 77; }

SOCK="allox-tui-$$"
tm() {
	tmux -L "$SOCK" "$@"
}
trap 'tm kill-server 2>/dev/null; stop_engine; rm -rf "$TMP"' EXIT

screen() {
	tm capture-pane -p -t main
}
# on_screen TEXT: the screen shows TEXT (fixed string).
on_screen() {
	screen | grep -qF -- "$1"
}
# on_screen_re REGEX: the screen shows a line matching REGEX (grep BRE).
on_screen_re() {
	screen | grep -q -- "$1"
}
# wait_screen SECONDS TEXT
wait_screen() {
	wait_until "$1" on_screen "$2"
}
show_screen() {
	screen > "$TMP/out"
	: > "$TMP/err"
}
# Start CMD in a fresh pane of COLSxROWS; its status and stty -a before and
# after are written to files.
open_pane() {
	cols=$1 rows=$2
	shift 2
	tm kill-server 2>/dev/null
	rm -f "$TMP/status" "$TMP/stty.after"
	# The pane's sh shares the shell's process group: a Ctrl-C in plain mode
	# (a real SIGINT there) must not end it before it records the status.
	cat > "$TMP/pane.sh" <<EOF2
trap : INT
stty -a > "$TMP/stty.before"
env TERM=\${PANE_TERM:-screen} ALLOX_TUI_REFRESH=1 ALLOX_TUI_DUMP="$TMP/dump" $*
echo \$? > "$TMP/status.tmp"
stty -a > "$TMP/stty.after"
mv "$TMP/status.tmp" "$TMP/status"
sleep 600
EOF2
	tm -f /dev/null new-session -d -s main -x "$cols" -y "$rows" "sh $TMP/pane.sh"
}
keys() {
	tm send-keys -t main "$@"
}
# A line typed while a command runs only goes to the history, so each one
# waits for the last to end (slow under the sanitizers).
type_line() {
	wait_idle
	tm send-keys -t main -l "$1"
	tm send-keys -t main Enter
}
# No command running: the status line offers Ctrl-C only while one runs.
idle() {
	! screen | grep -qF "(Ctrl-C cancels)"
}
wait_idle() {
	wait_until 60 idle || { show_screen; fail "a command is still running"; }
}
current_id() {
	jq -r '.current.sandbox_id // empty' "$ALLOX_HOME/sessions.json" 2>/dev/null
}

t "no arguments on a terminal open the shell with its panes"
open_pane 120 40 "$ALLOX_CLI"
wait_screen 20 "Sessions" || fail "no sessions pane"
wait_screen 20 "allox>" || fail "no prompt"
show_screen
expect_out_has "Checkpoints of"
expect_out_has "Output"
tail -n 1 "$TMP/out" | grep -q '^allox>$' || fail "the last row is not the prompt"

t "sandbox create: the id appears, marked current, in the sessions pane"
type_line "sandbox create"
wait_until 60 sh -c "[ -n \"\$(jq -r '.current.sandbox_id // empty' '$ALLOX_HOME/sessions.json' 2>/dev/null)\" ]" ||
	fail "no current session"
SRC=$(current_id)
# The sessions pane is the top rows, left of the separator.
in_sessions_pane() {
	screen | head -n 13 | grep -F -- "$1" | grep -qF -- "$2"
}
wait_until 30 in_sessions_pane "$SRC" "▶" || { show_screen; fail "the sandbox is not in the sessions pane"; }
wait_screen 30 "sandbox ${SRC%%-*}" || { show_screen; fail "the status line lacks the current sandbox"; }

t "output streams while the command runs: a shows before b exists"
type_line "run -- sh -c 'echo a; sleep 6; echo b'"
line_a() {
	screen | grep -qx 'a'
}
wait_until 30 line_a || { show_screen; fail "a never showed"; }
show_screen
grep -qx 'b' "$TMP/out" && fail "b was there as soon as a showed (output did not stream)"
grep -qF "(Ctrl-C cancels) running run -- sh -c" "$TMP/out" || fail "the status line does not show the running command"
wait_until 30 sh -c "tmux -L '$SOCK' capture-pane -p -t main | grep -qx b" || fail "b never showed"
wait_screen 10 "last: exit 0" || { show_screen; fail "no exit status in the status line"; }

t "aio exec output streams too: a shows before b exists"
type_line "aio exec -- sh -c 'echo a2; sleep 6; echo b2'"
line_a2() {
	screen | grep -qx 'a2'
}
wait_until 30 line_a2 || { show_screen; fail "a2 never showed"; }
show_screen
grep -qx 'b2' "$TMP/out" && fail "b2 was there as soon as a2 showed (aio exec did not stream)"
# The command line is longer than the status line has room for: the hint
# must still show (it was cut off once, and a typed line went to history).
grep -qF "(Ctrl-C cancels) running aio exec" "$TMP/out" || fail "a long command hides the Ctrl-C hint"
wait_until 30 sh -c "tmux -L '$SOCK' capture-pane -p -t main | grep -qx b2" || fail "b2 never showed"

t "the screen dump holds the same screen"
wait_until 10 sh -c "grep -qx b2 '$TMP/dump'" || fail "dump lacks b2"
grep -qF "Sessions (1)" "$TMP/dump" || fail "dump lacks the sessions title"
grep -qF "$SRC" "$TMP/dump" || fail "dump lacks the sandbox id"

t "checkpoint create --name x shows x in the checkpoints pane"
# b2 shows before aio exec has ended (slowly under ASan): a line typed
# meanwhile only goes to the history.
wait_idle
type_line "checkpoint create --name x"
in_checkpoints_pane() {
	screen | head -n 13 | grep -q "│ [^ ] x  "
}
wait_until 60 in_checkpoints_pane || { show_screen; fail "x is not in the checkpoints pane"; }

t "Tab completes a verb"
keys -l "sandbox ki"
keys Tab
wait_screen 10 "allox> sandbox kill" || { show_screen; fail "the verb was not completed"; }
keys C-u

t "Tab completes a sandbox id"
keys -l "sandbox get $(printf %s "$SRC" | cut -c1-6)"
keys Tab
wait_screen 10 "allox> sandbox get $SRC" || { show_screen; fail "the id was not completed"; }
keys Enter
# The panel pads keys to the longest (memory, with the limits it shows).
wait_until 30 on_screen_re "image: *host" || { show_screen; fail "sandbox get did not run"; }
wait_idle

t "Tab completes option values"
keys -l "checkpoint list -o y"
keys Tab
wait_screen 10 "allox> checkpoint list -o yaml" || { show_screen; fail "-o value was not completed"; }
keys C-u

t "Ctrl-C on the command line drops the typed line"
wait_idle
keys -l "sandbox kill abc"
wait_screen 10 "allox> sandbox kill abc" || fail "the line was not typed"
keys C-c
prompt_empty() {
	screen | tail -n 1 | grep -qx 'allox>'
}
wait_until 10 prompt_empty || { show_screen; fail "the line is still there"; }

t "a wrong command is shown and the shell stays"
type_line "sandbox bogus"
wait_screen 20 "unknown verb 'bogus' for 'sandbox'" || { show_screen; fail "no error shown"; }
wait_screen 10 "exit 2" || fail "no exit 2"
type_line "config path"
wait_screen 20 "$ALLOX_HOME/config.toml" || { show_screen; fail "the shell did not run the next command"; }
[ ! -e "$TMP/status" ] || fail "the shell ended"

t "Ctrl-C cancels the running command, never the shell"
type_line "run -- sh -c 'echo started; sleep 60'"
wait_until 30 sh -c "tmux -L '$SOCK' capture-pane -p -t main | grep -qx started" || fail "the command did not start"
keys C-c
wait_screen 30 "exit 130" || { show_screen; fail "the command was not cancelled"; }
[ ! -e "$TMP/status" ] || fail "Ctrl-C ended the shell"
type_line "config path"
wait_until 20 sh -c "[ \$(tmux -L '$SOCK' capture-pane -p -t main | grep -c config.toml) -ge 2 ]" ||
	fail "the shell does not run commands after Ctrl-C"

t "Tab on an empty line moves to the panes; Esc comes back"
keys Tab
wait_screen 10 "Sessions (1)  ↑↓ select, Enter: use" || { show_screen; fail "Tab did not focus the sessions pane"; }
keys Tab
wait_screen 10 "Enter: restore" || { show_screen; fail "Tab did not move to the checkpoints pane"; }
keys Escape
wait_screen 10 "Sessions (1)  [F2]" || { show_screen; fail "Esc did not return to the command line"; }

t "PgUp scrolls the output back, End follows it again"
type_line "run -- seq 1 200"
wait_until 30 sh -c "tmux -L '$SOCK' capture-pane -p -t main | grep -qx 200" || fail "seq did not finish"
keys PPage
wait_screen 10 "scrolled up" || { show_screen; fail "PgUp did not scroll"; }
show_screen
grep -qx 200 "$TMP/out" && fail "the last line is still shown after PgUp"
keys F4
keys End
wait_until 10 sh -c "tmux -L '$SOCK' capture-pane -p -t main | grep -qx 200" || { show_screen; fail "End did not follow"; }
keys Escape

t "Enter on a checkpoint asks, y restores it into a new current sandbox"
keys F3
keys Enter
wait_screen 10 "[y/N]" || { show_screen; fail "no question"; }
keys y
wait_until 60 sh -c "[ \"\$(jq -r '.current.sandbox_id // empty' '$ALLOX_HOME/sessions.json')\" != '$SRC' ]" ||
	fail "the restore did not make a new current sandbox"
RESTORED=$(current_id)
wait_until 30 in_sessions_pane "$RESTORED" "▶" || { show_screen; fail "the restored sandbox is not marked current"; }

t "Enter on a sandbox makes it current"
keys F2
# Select the source sandbox: move until its row is the highlighted one.
i=0
while [ $i -lt 4 ] && [ "$(current_id)" != "$SRC" ]; do
	keys Down
	keys Enter
	wait_until 10 sh -c "[ \"\$(jq -r '.current.sandbox_id' '$ALLOX_HOME/sessions.json')\" = '$SRC' ]"
	if [ "$(current_id)" != "$SRC" ]; then
		keys Up Up
		keys Enter
		wait_until 10 sh -c "[ \"\$(jq -r '.current.sandbox_id' '$ALLOX_HOME/sessions.json')\" = '$SRC' ]"
	fi
	i=$((i + 1))
done
[ "$(current_id)" = "$SRC" ] || fail "Enter on the source sandbox did not make it current"
wait_until 20 in_sessions_pane "$SRC" "▶" || { show_screen; fail "the marker did not move"; }
keys Escape

t "? shows the help overlay and any key closes it"
keys "?"
wait_screen 10 "Any key closes this." || fail "no help overlay"
keys q
wait_until 10 sh -c "! tmux -L '$SOCK' capture-pane -p -t main | grep -qF 'Any key closes this.'" || fail "the overlay stayed"

t "resize to 80x24 re-lays out every pane and stays usable"
tm resize-window -t main -x 80 -y 24
wait_until 20 sh -c "[ \$(wc -l < '$TMP/dump') -eq 24 ]" || fail "the shell did not see 24 rows"
in_layout() {
	show_screen
	sed -n 8p "$TMP/out" | grep -q '^ Output' && sed -n 2p "$TMP/out" | grep -q '^.\{40\}│' &&
		tail -n 1 "$TMP/out" | grep -q '^allox>'
}
wait_until 20 in_layout || fail "the 80x24 layout is wrong"
grep -qF "$SRC" "$TMP/out" || fail "a full sandbox id does not fit the sessions pane at 80 columns"
type_line "config path"
wait_until 20 sh -c "[ \$(tmux -L '$SOCK' capture-pane -p -t main | grep -c config.toml) -ge 1 ]" ||
	fail "not usable at 80x24"

t "history is kept in \$ALLOX_HOME/history and shown by history"
grep -qx "sandbox create" "$ALLOX_HOME/history" || fail "history file lacks sandbox create"
type_line "history"
history_shown() {
	screen | grep -qE '^ +[0-9]+  sandbox bogus$'
}
wait_until 10 history_shown || { show_screen; fail "history not shown"; }

t "exit returns status 0 and restores the terminal exactly"
# Back to the size stty -a saw at the start, so all of it must match.
tm resize-window -t main -x 120 -y 40
# The dump has the size the shell itself saw (tmux delays a pane's resize
# after a recent one, and capture-pane shows its grid before that).
wait_until 20 sh -c "[ \$(wc -l < '$TMP/dump') -eq 40 ]" || fail "the shell did not see 40 rows"
type_line "exit"
wait_until 20 test -e "$TMP/status" || fail "the shell did not end"
[ "$(cat "$TMP/status" 2>/dev/null)" = 0 ] || fail "exit status $(cat "$TMP/status" 2>/dev/null)"
cmp -s "$TMP/stty.before" "$TMP/stty.after" || fail "stty -a changed: $(diff "$TMP/stty.before" "$TMP/stty.after")"

t "Ctrl-D leaves too"
open_pane 80 24 "$ALLOX_CLI" shell
wait_screen 20 "allox>" || fail "no prompt"
keys C-d
wait_until 20 test -e "$TMP/status" || fail "Ctrl-D did not end the shell"
[ "$(cat "$TMP/status" 2>/dev/null)" = 0 ] || fail "exit status $(cat "$TMP/status" 2>/dev/null)"
cmp -s "$TMP/stty.before" "$TMP/stty.after" || fail "stty -a changed"

t "plain mode: the prompt and completion without panes"
open_pane 80 24 "$ALLOX_CLI" shell --plain
wait_screen 20 "allox>" || fail "no prompt"
keys -l "config pa"
keys Tab
wait_screen 10 "allox> config path" || { show_screen; fail "no completion in plain mode"; }
keys Enter
wait_screen 20 "$ALLOX_HOME/config.toml" || fail "the command did not run"
on_screen "Sessions" && fail "plain mode shows panes"
type_line "exit 4"
wait_until 20 test -e "$TMP/status" || fail "the shell did not end"
[ "$(cat "$TMP/status" 2>/dev/null)" = 4 ] || fail "exit 4 gave $(cat "$TMP/status" 2>/dev/null)"
cmp -s "$TMP/stty.before" "$TMP/stty.after" || fail "stty -a changed in plain mode"

t "plain mode: Ctrl-C cancels the command, not the shell"
open_pane 80 24 "$ALLOX_CLI" shell --plain
wait_screen 20 "allox>" || fail "no prompt"
type_line "run -- sh -c 'echo started; sleep 60'"
wait_until 60 sh -c "tmux -L '$SOCK' capture-pane -p -t main | grep -qx started" || fail "the command did not start"
keys C-c
wait_screen 30 "Interrupted" || { show_screen; fail "the command was not interrupted"; }
type_line "config path"
wait_screen 20 "$ALLOX_HOME/config.toml" || { show_screen; fail "the shell did not survive Ctrl-C"; }
[ ! -e "$TMP/status" ] || fail "Ctrl-C ended plain mode"
type_line "exit"
wait_until 20 test -e "$TMP/status" || { show_screen; fail "the shell did not end"; }
cmp -s "$TMP/stty.before" "$TMP/stty.after" || fail "stty -a changed"

t "TERM=dumb selects plain mode"
PANE_TERM=dumb
export PANE_TERM
open_pane 80 24 "$ALLOX_CLI" shell
wait_screen 20 "allox>" || fail "no prompt"
type_line "config path"
wait_screen 20 "$ALLOX_HOME/config.toml" || fail "the command did not run"
on_screen "Sessions" && fail "TERM=dumb shows panes"
keys C-d
wait_until 20 test -e "$TMP/status" || fail "Ctrl-D did not end plain mode"
unset PANE_TERM

t "no cgroup is left of a sandbox of this test: ended ones, then all once the engine stops"
expect_clean_stop

done_testing
