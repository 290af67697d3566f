#!/bin/sh
# config init | set | show | path, profiles and precedence.
. "${TESTS_DIR:-tests}/cli/lib.sh"

CFG="$ALLOX_HOME/config.toml"

t "config path defaults to ALLOX_HOME/config.toml"
run allox config path
expect_rc 0
expect_out "$ALLOX_HOME/config.toml"

t "config path honours --profile and --config"
run allox --profile dev config path
expect_out "$ALLOX_HOME/dev.toml"
run allox --profile dev --config "$TMP/x.toml" config path
expect_out "$TMP/x.toml"

t "config init writes the template"
run allox config init
expect_rc 0
expect_out "Created $CFG"
grep -q '^\[connection\]$' "$CFG" || fail "no [connection]"
grep -q '^# request_timeout = 30$' "$CFG" || fail "no request_timeout default"
grep -q 'flags > ALLOX_\* environment variables' "$CFG" || fail "no precedence note"
[ "$(stat -c %a "$CFG")" = 600 ] || fail "mode is not 600"

t "config init keeps an existing file"
echo '# mine' >> "$CFG"
cp "$CFG" "$TMP/before"
run allox config init
expect_rc 0
expect_out "Config already exists: $CFG (use --force to overwrite)"
cmp -s "$CFG" "$TMP/before" || fail "file changed"

t "config init --force rewrites it"
run allox config init --force
expect_rc 0
grep -q '# mine' "$CFG" && fail "old content kept"

t "config set edits one key in place"
cat > "$CFG" <<'TOML'
# my settings
[connection]
protocol = "http"   # keep this comment

[log]
level = "debug"
TOML
run allox config set connection.domain localhost:8080
expect_rc 0
expect_out "Updated connection.domain in $CFG"
grep -q '^# my settings$' "$CFG" || fail "comment lost"
grep -q '^protocol = "http"   # keep this comment$' "$CFG" || fail "trailing comment lost"
grep -q '^level = "debug"$' "$CFG" || fail "unknown section lost"
grep -q '^domain = "localhost:8080"$' "$CFG" || fail "domain not written"

t "config set types values"
run allox config set checkpoint.enabled false
expect_rc 0
grep -q '^enabled = false$' "$CFG" || fail "bool stored as $(grep enabled "$CFG")"
run allox config set defaults.aio_port 8081
grep -q '^aio_port = 8081$' "$CFG" || fail "int not stored"
run allox config set checkpoint.operations run,aio.exec
grep -q '^operations = \["run", "aio.exec"\]$' "$CFG" || fail "list not stored"
run allox config set defaults.ready_timeout 180s
grep -q '^ready_timeout = "180s"$' "$CFG" || fail "duration not stored"
run allox config set defaults.entrypoint '["/bin/sh", "-c", "a,b"]'
expect_rc 0
grep -q '^entrypoint = \["/bin/sh", "-c", "a,b"\]$' "$CFG" || fail "TOML array not stored"
run allox config set defaults.timeout none
expect_rc 0

t "config set replaces an existing value"
run allox config set defaults.aio_port 9000
grep -c '^aio_port' "$CFG" | grep -qx 1 || fail "key duplicated"
grep -q '^aio_port = 9000$' "$CFG" || fail "value not replaced"

t "config set rejects bad values and leaves the file byte-for-byte"
cp "$CFG" "$TMP/before"
for args in "checkpoint.enabled maybe" "defaults.aio_port 80x" "defaults.aio_port 70000" \
	    "defaults.ready_timeout soon" "connection.protocol gopher" "connection.domian x" \
	    "nosection x" "defaults.timeout 1x"; do
	# shellcheck disable=SC2086
	run allox config set $args
	expect_rc 2
	cmp -s "$CFG" "$TMP/before" || fail "file changed by: $args"
done
run allox config set connection.domian x
expect_err_has "Unknown key 'connection.domian' (did you mean 'connection.domain'?)"
run allox config set checkpoint.enabled maybe
expect_err_has "Invalid value 'maybe' for checkpoint.enabled: expected true or false"
ls "$ALLOX_HOME" | grep -q tmp && fail "temporary file left behind"

t "config set on a missing file creates it"
run allox --profile fresh config set connection.domain example:1
expect_rc 0
grep -q '^domain = "example:1"$' "$ALLOX_HOME/fresh.toml" || fail "not written"

t "config show -o json keeps the original shape and adds sources"
cat > "$CFG" <<'TOML'
[connection]
domain = "file:1"
api_key = "secret-key-9876"
[defaults]
skip_health_check = true
TOML
run allox config show -o json
expect_rc 0
jq -e '.config_path == "'"$CFG"'"' "$TMP/out" >/dev/null || fail "config_path"
jq -e '.resolved | keys_unsorted == ["api_key","domain","protocol","request_timeout","use_server_proxy","color","default_image","default_timeout","default_entrypoint","aio_port","aio_health_path","ready_timeout","skip_health_check","default_cpu","default_memory","default_pids","default_disk","checkpoint_enabled","checkpoint_on_success","checkpoint_operations","checkpoint_interval","checkpoint_strict","checkpoint_create_timeout"]' "$TMP/out" >/dev/null || fail "resolved keys"
jq -e '.resolved.api_key == "****9876" and .file.connection.api_key == "****9876"' "$TMP/out" >/dev/null || fail "api key not masked"
grep -q secret-key "$TMP/out" && fail "api key leaked"
jq -e '.resolved.skip_health_check == true and .resolved.request_timeout == 30' "$TMP/out" >/dev/null || fail "types"
jq -e '.sources.domain == "file" and .sources.protocol == "default"' "$TMP/out" >/dev/null || fail "sources"

t "precedence: flag > ALLOX_* > OPEN_SANDBOX_* > file"
run env OPEN_SANDBOX_DOMAIN=osb:2 "$ALLOX_CLI" config show -o json
jq -e '.resolved.domain == "osb:2" and .sources.domain == "env:OPEN_SANDBOX_DOMAIN"' "$TMP/out" >/dev/null || fail "OPEN_SANDBOX"
run env OPEN_SANDBOX_DOMAIN=osb:2 ALLOX_DOMAIN=ax:3 "$ALLOX_CLI" config show -o json
jq -e '.resolved.domain == "ax:3" and .sources.domain == "env:ALLOX_DOMAIN"' "$TMP/out" >/dev/null || fail "ALLOX_DOMAIN"
run env ALLOX_DOMAIN=ax:3 "$ALLOX_CLI" --domain flag:4 --request-timeout 5 config show -o json
jq -e '.resolved.domain == "flag:4" and .sources.domain == "flag" and .resolved.request_timeout == 5' "$TMP/out" >/dev/null || fail "flag"

t "config show table and yaml"
run allox --no-color config show
expect_rc 0
expect_out_has "Config file: $CFG"
expect_out_has "connection.domain"
expect_out_has "****9876"
run allox config show -o yaml
expect_rc 0
grep -q '^config_path: ' "$TMP/out" || fail "yaml shape"

t "profiles select their own file"
printf '[connection]\ndomain = "dev:1"\n' > "$ALLOX_HOME/dev.toml"
run allox --profile dev config show -o json
jq -e '.resolved.domain == "dev:1"' "$TMP/out" >/dev/null || fail "profile not used"
run allox --profile dev --config "$CFG" config show -o json
jq -e '.resolved.domain == "file:1"' "$TMP/out" >/dev/null || fail "--config does not win"

t "a broken config fails other commands with file:line:column"
printf '[connection]\ndomain = "x"\nprotocol = \n' > "$CFG"
run allox session current
expect_rc 1
expect_err_has "Error: $CFG:3:"
run allox config show
expect_rc 1
expect_err_has "$CFG:3:"
run allox config path
expect_rc 0
run allox config init --force
expect_rc 0

t "a wrongly typed value is an error"
printf '[checkpoint]\nenabled = "false"\n' > "$CFG"
run allox session current
expect_rc 1
expect_err_has "checkpoint.enabled: expected a boolean"

t "-o json errors are JSON on stderr"
run allox config show -o json
expect_rc 1
jq -e '.error.code == "CONFIG" and (.error.message | contains("checkpoint.enabled"))' "$TMP/err" >/dev/null || fail "not a JSON error"

done_testing
