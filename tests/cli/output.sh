#!/bin/sh
# Output contract: results on stdout, errors on stderr, write failures reported.
. "${TESTS_DIR:-tests}/cli/lib.sh"

allox session use abc >/dev/null

t "a full disk is a reported failure"
if [ -w /dev/full ]; then
	run sh -c '"$ALLOX_CLI" session current -o json > /dev/full'
	expect_rc 1
	expect_err_has "cannot write output"
fi

t "a closed pipe is a reported failure, not a crash"
run sh -c '"$ALLOX_CLI" --help | true; "$ALLOX_CLI" config show -o json | head -c 1 >/dev/null; exit 0'
expect_rc 0

t "no colour without a terminal"
run allox session current
grep -q "$(printf '\033')" "$TMP/out" && fail "escape codes in piped output"

t "ASCII fallback without a UTF-8 locale"
run env LC_ALL=C "$ALLOX_CLI" session current
expect_rc 0
grep -q '[^[:print:][:space:]]' "$TMP/out" && fail "non-ASCII bytes in C locale"
expect_out_has "abc"

t "yaml and json parse back to the same data"
run allox config show -o json
jq -S . "$TMP/out" > "$TMP/a.json"
run allox config show -o yaml
/usr/bin/python3 -c 'import sys, yaml, json; print(json.dumps(yaml.safe_load(open(sys.argv[1])), sort_keys=True, indent=2))' "$TMP/out" > "$TMP/b.json"
jq -S . "$TMP/b.json" > "$TMP/c.json"
cmp -s "$TMP/a.json" "$TMP/c.json" || fail "yaml differs from json"

done_testing
