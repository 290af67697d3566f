#!/bin/sh
# The allox> shell without a terminal: script mode (stdin not a terminal),
# shell words, errors and exit statuses; plain mode through a pty is in tui.sh.
. "${TESTS_DIR:-tests}/cli/lib.sh"

t "script mode prints only the commands' output"
printf 'config path\n\n# a comment\nconfig path # trailing comment\n' > "$TMP/script"
run allox shell < "$TMP/script"
expect_rc 0
printf '%s\n%s\n' "$ALLOX_HOME/config.toml" "$ALLOX_HOME/config.toml" | cmp -s - "$TMP/out" || fail "output"
[ ! -s "$TMP/err" ] || fail "stderr not empty"

t "a failing command does not stop the script; the last failure is the status"
printf 'sandbox bogus\nconfig path\nsandbox get\nconfig path\n' > "$TMP/script"
run allox shell < "$TMP/script"
expect_rc 1
expect_err_has "unknown verb 'bogus' for 'sandbox'"
[ "$(grep -c config.toml "$TMP/out")" -eq 2 ] || fail "the commands after a failure did not run"

t "usage errors count as failures (2)"
printf 'config path\nsandbox bogus\nconfig path\n' > "$TMP/script"
run allox shell < "$TMP/script"
expect_rc 2

t "no failure: status 0"
printf 'config path\n' > "$TMP/script"
run allox shell < "$TMP/script"
expect_rc 0

t "quotes and backslashes are split like a shell"
printf "config set connection.domain 'local'\nconfig set defaults.image \"host\"\nconfig show -o json\n" > "$TMP/script"
run allox shell < "$TMP/script"
expect_rc 0
sed -n '/^{/,$p' "$TMP/out" | jq -e '.resolved.domain == "local" and .resolved.default_image == "host"' >/dev/null ||
	fail "the quoted values did not arrive"

t "an unterminated quote is a usage error and the script goes on"
printf 'config path "x\nconfig path\n' > "$TMP/script"
run allox shell < "$TMP/script"
expect_rc 2
expect_err_has "Error: unterminated double quote"
expect_out_has "config.toml"

t "no expansion: \$HOME and globs reach the command as typed"
printf 'config set connection.domain $HOME*\nconfig show -o json\n' > "$TMP/script"
run allox shell < "$TMP/script"
grep -qF '$HOME*' "$TMP/out" "$TMP/err" || fail "the word was expanded"

t "exit ends the script with its status; later lines do not run"
printf 'config path\nexit 3\nconfig bogus\n' > "$TMP/script"
run allox shell < "$TMP/script"
expect_rc 3
expect_out_has "config.toml"
[ ! -s "$TMP/err" ] || fail "a line after exit ran"

t "exit without a status in a script returns the last failure"
printf 'config bogus\nexit\n' > "$TMP/script"
run allox shell < "$TMP/script"
expect_rc 2

t "help and help VERB are the CLI's help"
printf 'help\nhelp shell\n' > "$TMP/script"
run allox shell < "$TMP/script"
expect_rc 0
expect_out_has "Usage: allox-cli shell [OPTIONS]"
expect_out_has "checkpoint"

t "use ID is session use ID"
printf 'use\n' > "$TMP/script"
run allox shell < "$TMP/script"
expect_rc 2
expect_err_has "usage: use SANDBOX_ID"

t "the shell's own flags: --plain is accepted and --help documents script mode"
run allox shell --help
expect_rc 0
expect_out_has "--plain"
expect_out_has "script mode"

t "--plain with a pipe on stdin is script mode too (no prompt in the output)"
printf 'config path\n' > "$TMP/script"
run allox shell --plain < "$TMP/script"
expect_rc 0
expect_out "$ALLOX_HOME/config.toml"

t "no arguments without a terminal keep printing the help"
run allox < /dev/null
expect_rc 0
expect_out_has "Usage:"

t "global options reach every command of the shell"
printf 'config path\n' > "$TMP/script"
run allox --profile dev shell < "$TMP/script"
expect_rc 0
expect_out "$ALLOX_HOME/dev.toml"

done_testing
