#!/bin/sh
# Help and version: generated from the command table.
. "${TESTS_DIR:-tests}/cli/lib.sh"

t "--version"
run allox --version
expect_rc 0
expect_out "allox-cli 0.1.0"

t "--help lists groups, exit codes and environment"
run allox --help
expect_rc 0
expect_out_has "Usage: allox-cli [GLOBAL OPTIONS] GROUP VERB [ARGS] [OPTIONS]"
expect_out_has "  session      Show, choose or clear the current sandbox"
expect_out_has "  config       Create, show and change the configuration"
expect_out_has "  2    usage error"
expect_out_has "--request-timeout SECONDS"
expect_out_has "ALLOX_HOME"
[ ! -s "$TMP/err" ] || fail "stderr not empty"

t "no arguments shows the root help"
run allox
expect_rc 0
expect_out_has "Groups:"

t "group --help lists verbs"
run allox config --help
expect_rc 0
expect_out_has "Usage: allox-cli config VERB [ARGS] [OPTIONS]"
expect_out_has "  set            Set one key, keeping the rest of the file"

t "group without a verb prints its help and exits 0"
run allox session
expect_rc 0
expect_out_has "  current        Show the current session"

t "verb --help"
run allox config set --help
expect_rc 0
expect_out_has "Usage: allox-cli config set KEY VALUE"
expect_out_has "Examples:"

t "help GROUP VERB matches VERB --help"
run allox help config set
cp "$TMP/out" "$TMP/help1"
run allox config set --help
cmp -s "$TMP/out" "$TMP/help1" || fail "help config set differs from config set --help"

t "help GROUP"
run allox help session
expect_rc 0
expect_out_has "Verbs:"

t "-o choices are shown"
run allox session current --help
expect_out_has "-o, --output table|json|yaml"
expect_out_has "(default: table)"

t "help works with a broken config file"
mkdir -p "$ALLOX_HOME"
printf '[connection\n' > "$ALLOX_HOME/config.toml"
run allox session current --help
expect_rc 0
run allox --help
expect_rc 0
rm "$ALLOX_HOME/config.toml"

t "help of an unknown group"
run allox help sesion
expect_rc 2
expect_err_has "did you mean 'session'?"

done_testing
