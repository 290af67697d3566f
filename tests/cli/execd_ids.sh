#!/bin/sh
# Other users inside a real sandbox, through the agent's execd routes: the
# uid/gid fields of POST /command (foreground and background), and the
# owner/group of uploads, /files/permissions and /directories. The
# sandbox's user namespace maps ids 0-65535, so those work and 70000 gets
# a clear refusal. Runs a real local engine in a private ALLOX_HOME.
. "${TESTS_DIR:-tests}/cli/lib.sh"
. "${TESTS_DIR:-tests}/cli/engine_lib.sh"

run allox sandbox create -o json
ID=$(jq -r .id "$TMP/out")
[ -n "$ID" ] && [ "$ID" != null ] || { cat "$TMP/err" >&2; echo "cannot create a sandbox" >&2; exit 1; }
curl -sf --unix-socket "$ALLOX_HOME/run/engine.sock" "http://x/v1/sandboxes/$ID/endpoints/44772" >"$TMP/ep.json" ||
	{ echo "no endpoint" >&2; exit 1; }
URL="http://$(jq -r .endpoint "$TMP/ep.json")"
T_HDR="X-EXECD-ACCESS-TOKEN: $(jq -r '.headers["X-EXECD-ACCESS-TOKEN"]' "$TMP/ep.json")"

# req METHOD PATH [CURL ARGS...]: sets $code; the body in $TMP/out.
req() {
	m=$1
	p=$2
	shift 2
	code=$(curl -s -o "$TMP/out" -w '%{http_code}' --max-time 30 -H "$T_HDR" -X "$m" "$@" "$URL$p")
}

# cmd JSON: POST /command; the events in $TMP/out.
cmd() {
	req POST /command -N -H 'Content-Type: application/json' --data-binary "$1"
}

# stdout_of: the stdout lines of the events in $TMP/out.
stdout_of() {
	jq -r 'select(.type == "stdout") | .text' "$TMP/out"
}

# sh_as UID SCRIPT: run SCRIPT as UID (empty: as root), print its stdout.
sh_as() {
	if [ -n "$1" ]; then
		cmd "$(jq -nc --arg c "$2" --argjson u "$1" '{command: $c, uid: $u}')"
	else
		cmd "$(jq -nc --arg c "$2" '{command: $c}')"
	fi
	stdout_of
}

# ev FILTER: FILTER holds for the array of events in $TMP/out.
ev() {
	jq -e -s "$1" "$TMP/out" >/dev/null 2>&1 || fail "events fail: $1"
}

# upload META CONTENT: POST /files/upload of one file.
upload() {
	printf '%s' "$2" >"$TMP/payload"
	printf '%s' "$1" >"$TMP/meta.json"
	req POST /files/upload -F "metadata=@$TMP/meta.json;filename=metadata;type=application/json" \
		-F "file=@$TMP/payload;type=application/octet-stream"
}

# owner_of PATH: uid:gid mode inside the sandbox.
owner_of() {
	sh_as "" "stat -c '%u:%g %a' '$1'"
}

# wait_done ID: poll the status of background command ID until it ends.
wait_done() {
	i=0
	while [ $i -lt 100 ]; do
		req GET "/command/status/$1"
		jq -e '.running == false' "$TMP/out" >/dev/null 2>&1 && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

[ "$(sh_as "" 'echo ready')" = ready ] || { echo "the agent does not run commands" >&2; exit 1; }
# Fixtures, as root: a user with a supplementary group, a directory only
# root may enter, and the primary group the image gives uid 65534.
sh_as "" 'echo "idtest:x:4300:4300::/tmp:/bin/sh" >>/etc/passwd &&
	printf "idtest:x:4300:\nidextra:x:4301:idtest\n" >>/etc/group &&
	mkdir -m 700 /tmp/private && mkdir -m 1777 /tmp/ids' >/dev/null
NOBODY_GID=$(sh_as "" 'getent passwd 65534 | cut -d: -f4')
[ -n "$NOBODY_GID" ] || NOBODY_GID=0
[ -z "$(sh_as "" 'getent passwd 4242')" ] || echo "warning: uid 4242 has a passwd entry in this image" >&2

t "POST /command with uid runs as that user, in the user's primary group"
[ "$(sh_as 65534 'id -u; id -g')" = "65534
$NOBODY_GID" ] || fail "ids as 65534: $(stdout_of | tr '\n' ' ')"
ev '.[-1].type == "execution_complete"'

t "files a command makes belong to its user inside the sandbox"
[ "$(sh_as 65534 'touch /tmp/ids/made-by-65534 && stat -c %u:%g /tmp/ids/made-by-65534')" = "65534:$NOBODY_GID" ] ||
	fail "owner $(stdout_of)"
[ "$(owner_of /tmp/ids/made-by-65534)" = "65534:$NOBODY_GID 644" ] || fail "seen by root: $(stdout_of)"

t "uid and gid together: both, and no capability left"
cmd '{"command":"id -u; id -g; touch /tmp/ids/made-by-1000; stat -c %u:%g /tmp/ids/made-by-1000; grep -E \"^Cap(Prm|Eff)\" /proc/self/status","uid":1000,"gid":1000}'
[ "$(stdout_of | tr '\n\t' '  ')" = "1000 1000 1000:1000 CapPrm: 0000000000000000 CapEff: 0000000000000000 " ] ||
	fail "as 1000:1000: $(stdout_of | tr '\n' ' ')"

t "a user's supplementary groups come from the group database"
[ "$(sh_as 4300 'id -u; id -g; id -G')" = "4300
4300
4300 4301" ] || fail "idtest: $(stdout_of | tr '\n' ' ')"
cmd '{"command":"id -G","uid":4300,"gid":4301}'
[ "$(stdout_of)" = "4301 4300" ] || fail "idtest with gid 4301: $(stdout_of)"

t "a uid without a passwd entry runs in group 0, as with the official execd"
[ "$(sh_as 4242 'id -u; id -g; id -G')" = "4242
0
0" ] || fail "4242: $(stdout_of | tr '\n' ' ')"

t "the default working directory stays; one the user may not enter is an error event"
[ "$(sh_as 65534 pwd)" = /home/gem ] || fail "pwd $(stdout_of)"
cmd '{"command":"pwd","uid":65534,"cwd":"/tmp/private"}'
ev 'length == 2 and .[0].type == "init" and .[1].type == "error" and .[1].error.ename == "CommandExecError"'
ev '.[1].error.evalue == "working directory /tmp/private: Permission denied"'

t "a uid or gid the sandbox does not map: an error event that says so"
cmd '{"command":"id -u","uid":70000}'
[ "$code" = 200 ] || fail "status $code"
ev 'length == 2 and .[0].type == "init" and .[1].type == "error" and .[1].error.ename == "CommandExecError"'
ev '.[1].error.evalue == "uid 70000 is not mapped in this sandbox (uids 0-65535)"'
id70000=$(jq -r 'select(.type == "init") | .text' "$TMP/out")
req GET "/command/status/$id70000"
jq -e '.running == false and .exit_code == 255 and (.error | test("uid 70000 is not mapped"))' "$TMP/out" >/dev/null ||
	fail "status of the refused command"
cmd '{"command":"id -u","uid":1000,"gid":70000}'
ev '.[1].error.evalue == "gid 70000 is not mapped in this sandbox (gids 0-65535)"'
cmd '{"command":"id -u","uid":4294967295}'
ev '.[1].type == "error" and (.[1].error.evalue | test("uid 4294967295 is not mapped"))'

t "uid and gid out of range or of the wrong type are invalid requests"
for body in '{"command":"id","uid":-1}' '{"command":"id","uid":4294967296}' '{"command":"id","uid":"1000"}' \
	'{"command":"id","gid":1000}'; do
	cmd "$body"
	[ "$code" = 400 ] && jq -e '.code == "INVALID_REQUEST_BODY"' "$TMP/out" >/dev/null || fail "$body: $code $(cat "$TMP/out")"
done

t "a background command as uid 65534"
cmd '{"command":"id -u; id -g; touch /tmp/ids/bg; stat -c %u /tmp/ids/bg","uid":65534,"background":true}'
bg=$(jq -r 'select(.type == "init") | .text' "$TMP/out")
wait_done "$bg" || fail "it did not end"
jq -e '.exit_code == 0' "$TMP/out" >/dev/null || fail "status $(cat "$TMP/out")"
req GET "/command/$bg/logs"
[ "$(cat "$TMP/out")" = "65534
$NOBODY_GID
65534" ] || fail "log"

t "a background command as another user can be interrupted"
cmd '{"command":"sleep 300","uid":65534,"background":true}'
bg=$(jq -r 'select(.type == "init") | .text' "$TMP/out")
req DELETE "/command?id=$bg"
[ "$code" = 200 ] || fail "interrupt: $code"
wait_done "$bg" || fail "it did not end"

t "a background command with an unmapped uid is a 500 that says why"
cmd '{"command":"id -u","uid":70000,"background":true}'
[ "$code" = 500 ] || fail "status $code"
jq -e '.code == "RUNTIME_ERROR" and .message == "error running commands uid 70000 is not mapped in this sandbox (uids 0-65535)"' \
	"$TMP/out" >/dev/null || fail "answer"

t "upload with an owner by name and group by name"
upload '{"path":"/tmp/ids/up-nobody","owner":"nobody","group":"'"$(sh_as "" "getent group $NOBODY_GID | cut -d: -f1")"'","mode":640}' x
[ "$code" = 200 ] || fail "status $code"
[ "$(owner_of /tmp/ids/up-nobody)" = "65534:$NOBODY_GID 640" ] || fail "owner $(stdout_of)"

t "upload with a numeric owner and group"
upload '{"path":"/tmp/ids/up-1000","owner":"1000","group":"1000","mode":600}' y
[ "$code" = 200 ] || fail "status $code"
[ "$(owner_of /tmp/ids/up-1000)" = "1000:1000 600" ] || fail "owner $(stdout_of)"
[ "$(sh_as 1000 'cat /tmp/ids/up-1000')" = y ] || fail "its owner cannot read it"

t "an upload that replaces a file without naming an owner keeps the file's owner"
upload '{"path":"/tmp/ids/up-1000"}' z
[ "$code" = 200 ] || fail "status $code"
[ "$(owner_of /tmp/ids/up-1000)" = "1000:1000 600" ] || fail "owner $(stdout_of)"

t "/files/permissions with names and numbers"
sh_as "" 'touch /tmp/ids/p1 /tmp/ids/p2' >/dev/null
req POST /files/permissions -H 'Content-Type: application/json' \
	--data-binary '{"/tmp/ids/p1":{"owner":"nobody","mode":600},"/tmp/ids/p2":{"owner":"1000","group":"4301","mode":0}}'
[ "$code" = 200 ] || fail "status $code $(cat "$TMP/out")"
[ "$(owner_of /tmp/ids/p1)" = "65534:0 600" ] || fail "p1 $(stdout_of)"
[ "$(owner_of /tmp/ids/p2)" = "1000:4301 644" ] || fail "p2 $(stdout_of)"
req GET '/files/info?path=/tmp/ids/p1&path=/tmp/ids/p2'
jq -e '.["/tmp/ids/p1"].owner == "nobody" and .["/tmp/ids/p2"].group == "idextra"' "$TMP/out" >/dev/null || fail "info"

t "/directories gives the directories it makes their owner"
req POST /directories -H 'Content-Type: application/json' \
	--data-binary '{"/tmp/ids/d/sub":{"owner":"65534","group":"65534","mode":750}}'
[ "$code" = 200 ] || fail "status $code $(cat "$TMP/out")"
[ "$(owner_of /tmp/ids/d)" = "65534:65534 755" ] || fail "d $(stdout_of)"
[ "$(owner_of /tmp/ids/d/sub)" = "65534:65534 750" ] || fail "sub $(stdout_of)"

t "an owner or group the sandbox does not map is refused up front, and nothing is made"
upload '{"path":"/tmp/ids/up-70000","owner":"70000"}' x
[ "$code" = 400 ] || fail "upload status $code"
jq -e '.message == "invalid metadata: owner: uid 70000 is not mapped in this sandbox (uids 0-65535)"' "$TMP/out" >/dev/null ||
	fail "upload answer"
req POST /files/permissions -H 'Content-Type: application/json' --data-binary '{"/tmp/ids/p1":{"group":"70000"}}'
[ "$code" = 400 ] && jq -e '.message == "/tmp/ids/p1: group: gid 70000 is not mapped in this sandbox (gids 0-65535)"' \
	"$TMP/out" >/dev/null || fail "permissions: $code $(cat "$TMP/out")"
req POST /directories -H 'Content-Type: application/json' --data-binary '{"/tmp/ids/d70000":{"owner":"70000"}}'
[ "$code" = 400 ] || fail "directories status $code"
[ "$(sh_as "" 'ls /tmp/ids | grep -c 70000')" = 0 ] || fail "something was made"
[ "$(owner_of /tmp/ids/p1)" = "65534:0 600" ] || fail "p1 changed"

t "numeric owners that would wrap are unknown users"
for o in 4294967296 -1 ' 1'; do
	upload "$(jq -nc --arg o "$o" '{path: "/tmp/ids/wrap", owner: $o}')" x
	[ "$code" = 400 ] || fail "owner '$o': $code"
done

expect_clean_stop
done_testing
