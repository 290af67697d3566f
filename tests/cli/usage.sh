#!/bin/sh
# Usage errors: exit 2, a usage line, a one-line reason and a suggestion for near misses.
. "${TESTS_DIR:-tests}/cli/lib.sh"

t "unknown group suggests"
run allox sesion current
expect_rc 2
expect_empty_out
expect_err "Usage: allox-cli [GLOBAL OPTIONS] GROUP VERB [ARGS] [OPTIONS]
Error: unknown command 'sesion' (did you mean 'session'?)
Try 'allox-cli --help' for help."

t "unknown verb suggests"
run allox session curent
expect_rc 2
expect_err "Usage: allox-cli session VERB [ARGS] [OPTIONS]
Error: unknown verb 'curent' for 'session' (did you mean 'current'?)
Try 'allox-cli session --help' for help."

t "unknown verb without a near miss"
run allox config frobnicate
expect_rc 2
expect_err_has "Error: unknown verb 'frobnicate' for 'config'"

t "unknown option suggests"
run allox config init --forse
expect_rc 2
expect_err "Usage: allox-cli config init [OPTIONS]
Error: unknown option '--forse' (did you mean '--force'?)
Try 'allox-cli config init --help' for help."

t "unknown global option"
run allox --verbos session current
expect_rc 2
expect_err_has "unknown option '--verbos' (did you mean '--verbose'?)"

t "bad -o value"
run allox session current -o raw
expect_rc 2
expect_err_has "Error: invalid value 'raw' for -o/--output: choose from table, json, yaml"

t "missing argument"
run allox session use
expect_rc 2
expect_err_has "Error: missing argument SANDBOX_ID"

t "extra argument"
run allox session current extra
expect_rc 2
expect_err_has "Error: unexpected argument 'extra'"

t "bad global choice"
run allox --protocol gopher session current
expect_rc 2
expect_err_has "invalid value 'gopher' for --protocol: choose from http, https"

t "bad global integer"
run allox --request-timeout soon session current
expect_rc 2
expect_err_has "invalid value 'soon' for --request-timeout: expected an integer"

t "bad profile name"
run allox --profile ../etc session current
expect_rc 2
expect_err_has "Invalid profile name '../etc'"

t "options anywhere among positionals"
run allox session use -o json abc
expect_rc 0
run allox session use abc -o json
expect_rc 0
expect_out_has '"sandbox_id": "abc"'

t "global option after the verb is not global"
run allox session current --verbose
expect_rc 2

t "a value with a newline and an escape sequence gives one harmless error line"
run allox checkpoint watch --interval "$(printf '5\n\033[31mred')"
expect_rc 2
# Usage line, the error, the hint: the newline in the value adds no line.
[ "$(wc -l < "$TMP/err")" -eq 3 ] || fail "error is not one line: $(cat -A "$TMP/err")"
! grep -q "$(printf '\033')" "$TMP/err" || fail "escape sequence reached stderr: $(cat -A "$TMP/err")"
expect_err_has "Invalid duration '5??[31mred'"

t "with -o json, a usage error the parser finds is JSON too, wherever -o json stands"
run allox run -o json
expect_rc 2
[ "$(jq -r .error.code "$TMP/err")" = USAGE ] || fail "not a JSON usage error: $(cat "$TMP/err")"
expect_err_has '"missing argument COMMAND"'
run allox sandbox get --bogus -o json
expect_rc 2
[ "$(jq -r .error.message "$TMP/err")" = "unknown option '--bogus'" ] || fail "not JSON: $(cat "$TMP/err")"
run allox sandbox get --bogus -o table
expect_rc 2
expect_err_has "Try 'allox-cli sandbox get --help' for help."
# After -- the words are run's command: its -o json is not ours. (A domain
# that refuses: the session set above must not start a local engine.)
run allox --domain 127.0.0.1:9 run -- -o json
expect_rc 1
! grep -q '^{' "$TMP/err" || fail "run's command was read as -o json: $(cat "$TMP/err")"

t "a missing required option is a usage error before the session is looked up"
allox session clear >/dev/null 2>&1
run allox sandbox renew
expect_rc 2
expect_err_has "Error: missing option --timeout DURATION"
run allox sandbox renew -o json
expect_rc 2
[ "$(jq -r .error.code "$TMP/err")" = USAGE ] || fail "not a JSON usage error: $(cat "$TMP/err")"
run allox aio screenshot -f ""
expect_rc 2
expect_err_has "Error: missing option --file FILE"

t "bounds from the table are usage errors"
run allox aio jupyter run -c 1 --timeout 301
expect_rc 2
expect_err_has "Error: --timeout must be from 1s to 300s"
run allox file download --chunk-size 5 /r x
expect_rc 2
expect_err_has "Error: --chunk-size must be from 1024 to 16777216"
run allox aio screenshot -f x --quality 101 -o json
expect_rc 2
[ "$(jq -r .error.message "$TMP/err")" = "--quality must be from 0 to 100" ] || fail "$(cat "$TMP/err")"

t "usage errors found before a command parses are JSON with -o json anywhere before --"
run allox sesion current -o json
expect_rc 2
expect_empty_out
expect_err '{"error":{"message":"unknown command '"'"'sesion'"'"' (did you mean '"'"'session'"'"'?)","code":"USAGE"}}'
run allox session curent --output=json
expect_rc 2
expect_err '{"error":{"message":"unknown verb '"'"'curent'"'"' for '"'"'session'"'"' (did you mean '"'"'current'"'"'?)","code":"USAGE"}}'
run allox --verbos session current -o json
expect_rc 2
expect_err '{"error":{"message":"unknown option '"'"'--verbos'"'"' (did you mean '"'"'--verbose'"'"'?)","code":"USAGE"}}'
run allox sesion -- -o json
expect_rc 2
expect_err_has "Error: unknown command 'sesion'"

t "a usage error a handler finds exits 2 with the usage line, or as JSON"
# A remote domain that refuses: no local engine starts for a usage error.
run allox --domain 127.0.0.1:9 sandbox create --image ""
expect_rc 2
expect_empty_out
expect_err "Usage: allox-cli sandbox create [OPTIONS]
Error: Image required. Use --image or defaults.image in config.
Try 'allox-cli sandbox create --help' for help."
run allox --domain 127.0.0.1:9 sandbox create --image "" -o json
expect_rc 2
expect_empty_out
expect_err '{"error":{"message":"Image required. Use --image or defaults.image in config.","code":"USAGE"}}'
if script -qec true /dev/null >/dev/null 2>&1; then
	# file write reads standard input only when it is not a terminal.
	script -qec "'$ALLOX_CLI' file write /home/gem/x.txt" /dev/null >"$TMP/out" 2>&1
	rc=$?
	expect_rc 2
	printf 'Usage: allox-cli file write [OPTIONS] [SANDBOX_ID] PATH\r\nError: Provide --content or pipe content via stdin.\r\nTry '"'"'allox-cli file write --help'"'"' for help.\r\n' |
		cmp -s - "$TMP/out" || fail "terminal output differs"
	script -qec "'$ALLOX_CLI' file write /home/gem/x.txt -o json" /dev/null >"$TMP/out" 2>&1
	rc=$?
	expect_rc 2
	printf '{"error":{"message":"Provide --content or pipe content via stdin.","code":"USAGE"}}\r\n' |
		cmp -s - "$TMP/out" || fail "terminal output differs"
fi

t "every error code leaves with its own exit status (__commands error_codes)"
allox __commands | jq -e '.error_codes | map(select(.code == "USAGE" or .code == "INVALID_VALUE" or .code == "INVALID_DURATION") | .exit) == [2, 2, 2]' >/dev/null ||
	fail "usage codes do not exit 2"
allox __commands | jq -e '[.error_codes[] | select(.exit != 1 and .exit != 2) | .code] == ["INTERRUPTED"]' >/dev/null ||
	fail "only INTERRUPTED leaves with neither 1 nor 2"

done_testing
