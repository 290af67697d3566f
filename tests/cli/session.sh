#!/bin/sh
# session current | use | clear, and concurrent writers.
. "${TESTS_DIR:-tests}/cli/lib.sh"

t "no session"
run allox session current
expect_rc 1
expect_empty_out
expect_err "Error: No current session. Run: allox-cli sandbox create  OR  allox-cli session use <id>"

t "no session, json error"
run allox session current -o json
expect_rc 1
jq -e '.error.code == "NO_SESSION"' "$TMP/err" >/dev/null || fail "json error"

t "session use"
run allox session use 0b7c6f0e-1111-4222-8333-944445555666 -o json
expect_rc 0
jq -e '.sandbox_id == "0b7c6f0e-1111-4222-8333-944445555666" and .aio_url == "" and (.created_at | test("^[0-9-]{10}T[0-9:]{8}\\+00:00$"))' "$TMP/out" >/dev/null || fail "json"
jq -e '.current.sandbox_id == "0b7c6f0e-1111-4222-8333-944445555666"' "$ALLOX_HOME/sessions.json" >/dev/null || fail "file"

t "session current, all formats"
run allox session current -o json
expect_rc 0
jq -e 'keys_unsorted == ["sandbox_id","aio_url","created_at"]' "$TMP/out" >/dev/null || fail "key order"
run allox session current -o yaml
grep -Eq "^sandbox_id: '?0b7c6f0e-1111-4222-8333-944445555666'?$" "$TMP/out" || fail "yaml"
run allox --no-color session current
expect_out_has "Current Session"
expect_out_has "0b7c6f0e-1111-4222-8333-944445555666"

t "sessions are shared by profiles"
run allox --profile dev session current -o json
expect_rc 0

t "session clear"
run allox session clear -o json
expect_rc 0
expect_out '{
  "status": "cleared"
}'
[ ! -e "$ALLOX_HOME/sessions.json" ] || fail "file kept"
run allox session clear
expect_rc 1
expect_err "Error: No current session to clear."

t "a damaged sessions.json reads as no session and is repaired by use"
printf 'garbage' > "$ALLOX_HOME/sessions.json"
run allox session current
expect_rc 1
run allox session use abc
expect_rc 0
jq -e '.current.sandbox_id == "abc"' "$ALLOX_HOME/sessions.json" >/dev/null || fail "not repaired"

t "bad ids are usage errors"
run allox session use ""
expect_rc 2
run allox session use "a/b"
expect_rc 2

t "20 concurrent session use never corrupt the file"
i=0
while [ $i -lt 20 ]; do
	"$ALLOX_CLI" session use "sbx-$i" >/dev/null 2>"$TMP/err.$i" &
	i=$((i + 1))
done
wait
jq -e '.current.sandbox_id | test("^sbx-[0-9]+$")' "$ALLOX_HOME/sessions.json" >/dev/null || fail "corrupt: $(cat "$ALLOX_HOME/sessions.json")"
cat "$TMP"/err.* | grep -q . && fail "errors: $(cat "$TMP"/err.*)"
"$ALLOX_CLI" session use last-writer >/dev/null
run allox session current -o json
jq -e '.sandbox_id == "last-writer"' "$TMP/out" >/dev/null || fail "last writer lost"
ls "$ALLOX_HOME" | grep -q '\.tmp' && fail "temporary files left"

done_testing
