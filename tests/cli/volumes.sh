#!/bin/sh
# Volumes of a create request: host directories only below the prefixes the
# engine allows (--allow-host-volumes), read-only or writable, with subPath,
# never leading out of the prefix through '..' or a symlink, their owner
# shown as the sandbox's root; named volumes (pvc) the engine keeps in
# $ALLOX_HOME/volumes, made on demand, kept after the sandbox unless it made
# one with deleteOnSandboxTermination; ossfs and fields the engine cannot
# honour refused by name.
. "${TESTS_DIR:-tests}/cli/lib.sh"
. "${TESTS_DIR:-tests}/cli/engine_lib.sh"
trap 'stop_engine; rm -rf "$TMP"' EXIT
SOCK="$ALLOX_HOME/run/engine.sock"

# create_api VOLUMES-JSON: POST /sandboxes with those volumes; the answer in
# $TMP/api, the status in $code, the id in $ID.
create_api() {
	code=$(curl -s -o "$TMP/api" -w '%{http_code}' --unix-socket "$SOCK" -H 'Content-Type: application/json' \
		-d '{"image":{"uri":"host"},"entrypoint":["tail","-f","/dev/null"],"resourceLimits":{},"volumes":'"$1"'}' \
		http://x/v1/sandboxes)
	ID=$(jq -r '.id // empty' "$TMP/api" 2>/dev/null)
}

delete_api() {
	curl -s -o /dev/null -X DELETE --unix-socket "$SOCK" "http://x/v1/sandboxes/$1"
}

# inside ID COMMAND: run a shell line in sandbox ID.
inside() {
	run allox run -- "$1" "$2"
}

SHARE="$TMP/share"
OWNER=4242
mkdir -p "$SHARE/data/sub" "$TMP/secret" "$ALLOX_HOME"
echo hello >"$SHARE/data/greeting.txt"
echo top-secret >"$TMP/secret/key"
ln -s "$TMP/secret" "$SHARE/data/escape"
ln -s sub "$SHARE/data/inside"
chown -R "$OWNER:$OWNER" "$SHARE"

t "without --allow-host-volumes a host volume is a 400 naming the option"
allox sandbox list >/dev/null 2>&1
create_api '[{"name":"d","host":{"path":"'"$SHARE"'"},"mountPath":"/mnt/d"}]'
[ "$code" = 400 ] || fail "status $code: $(cat "$TMP/api")"
jq -e '.code == "SANDBOX::INVALID_PARAMETER" and (.message | contains("--allow-host-volumes"))' "$TMP/api" >/dev/null ||
	fail "body: $(cat "$TMP/api")"
stop_engine

t "the engine refuses a prefix that is no directory"
run "$ALLOX_ENGINE" --home "$ALLOX_HOME" --allow-host-volumes "$TMP/nothing"
expect_rc 2
expect_err_has "--allow-host-volumes"

run "$ALLOX_ENGINE" --home "$ALLOX_HOME" --allow-host-volumes "$SHARE"
[ "$rc" -eq 0 ] || { echo "engine did not start: $(cat "$TMP/err")" >&2; exit 1; }

t "ossfs, unknown fields and paths outside the prefix are refused by name"
for v in '{"name":"o","ossfs":{"bucket":"b","endpoint":"e","accessKeyId":"a","accessKeySecret":"s"},"mountPath":"/o"}:ossfs' \
	'{"name":"d","host":{"path":"'"$TMP/secret"'"},"mountPath":"/mnt/d"}:not below a prefix' \
	'{"name":"d","host":{"path":"'"$SHARE"'/../secret"},"mountPath":"/mnt/d"}:without' \
	'{"name":"d","host":{"path":"'"$SHARE"'/data/escape"},"mountPath":"/mnt/d"}:leads out' \
	'{"name":"d","host":{"path":"'"$SHARE"'"},"subPath":"data/escape","mountPath":"/mnt/d"}:leads out' \
	'{"name":"d","host":{"path":"'"$SHARE"'"},"subPath":"../secret","mountPath":"/mnt/d"}:subPath' \
	'{"name":"d","host":{"path":"'"$SHARE"'"},"mountPath":"/proc/x"}:mountPath' \
	'{"name":"d","host":{"path":"'"$SHARE"'"},"mountPath":"/mnt/d","mode":"x"}:volumes[0].mode' \
	'{"name":"n","pvc":{"claimName":"n","storage":"1Gi"},"mountPath":"/n"}:pvc.storage' \
	'{"name":"n","pvc":{"claimName":"missing","createIfNotExists":false},"mountPath":"/n"}:does not exist'; do
	create_api "[${v%:*}]"
	case $code in 400|404) ;; *) fail "status $code for ${v%:*}: $(cat "$TMP/api")" ;; esac
	jq -e --arg w "${v##*:}" '(.message | contains($w)) and (keys == ["code","message"])' "$TMP/api" >/dev/null ||
		fail "body for ${v%:*}: $(cat "$TMP/api")"
	[ -z "$ID" ] || delete_api "$ID"
done
[ ! -e "$ALLOX_HOME/volumes/missing" ] || fail "createIfNotExists false made the volume"

t "a writable host volume with subPath: the owner is the sandbox's root, files land on the host"
create_api '[{"name":"d","host":{"path":"'"$SHARE"'"},"subPath":"data","mountPath":"/mnt/data"}]'
[ "$code" = 202 ] || fail "create: $code $(cat "$TMP/api")"
H=$ID
inside "$H" 'cat /mnt/data/greeting.txt && stat -c %u /mnt/data/greeting.txt && echo made >/mnt/data/new.txt'
expect_rc 0
[ "$(head -1 "$TMP/out")" = hello ] || fail "cannot read the host file"
[ "$(sed -n 2p "$TMP/out")" = 0 ] || fail "the directory's owner is not root inside"
[ "$(cat "$SHARE/data/new.txt" 2>/dev/null)" = made ] || fail "the write did not reach the host"
[ "$(stat -c %u "$SHARE/data/new.txt")" = "$OWNER" ] || fail "the new file is not the directory owner's on the host"
t "inside, a symlink out of the volume leads into the sandbox's own tree, not the host's"
inside "$H" 'cat /mnt/data/escape/key'
[ "$rc" -ne 0 ] || ! grep -q top-secret "$TMP/out" || fail "host file read through the symlink"
t "a user other than root inside cannot create files in a host volume"
inside "$H" 'setpriv --reuid=1000 --regid=1000 --clear-groups sh -c "echo x >/mnt/data/other.txt"'
[ "$rc" -ne 0 ] || fail "uid 1000 wrote to the host volume"
[ ! -e "$SHARE/data/other.txt" ] || fail "other.txt is on the host"
delete_api "$H"
[ -f "$SHARE/data/new.txt" ] || fail "deleting the sandbox removed host files"

t "a read-only host volume cannot be written"
create_api '[{"name":"d","host":{"path":"'"$SHARE"'/data"},"readOnly":true,"mountPath":"/mnt/ro"}]'
[ "$code" = 202 ] || fail "create: $code $(cat "$TMP/api")"
inside "$ID" 'cat /mnt/ro/greeting.txt; echo x >/mnt/ro/w.txt'
[ "$rc" -ne 0 ] || fail "the write succeeded"
grep -q hello "$TMP/out" || fail "cannot read"
[ ! -e "$SHARE/data/w.txt" ] || fail "w.txt reached the host"
delete_api "$ID"

t "a symlink within the prefix is followed"
create_api '[{"name":"d","host":{"path":"'"$SHARE"'/data/inside"},"readOnly":true,"mountPath":"/mnt/in"}]'
[ "$code" = 202 ] || fail "create: $code $(cat "$TMP/api")"
delete_api "$ID"

t "a named volume is made on demand, shared, kept after its sandbox"
create_api '[{"name":"n","pvc":{"claimName":"cache"},"mountPath":"/cache"}]'
[ "$code" = 202 ] || fail "create: $code $(cat "$TMP/api")"
inside "$ID" 'echo kept >/cache/f && stat -c %u /cache'
expect_rc 0
[ "$(cat "$TMP/out")" = 0 ] || fail "the volume is not root's inside"
delete_api "$ID"
[ "$(cat "$ALLOX_HOME/volumes/cache/f" 2>/dev/null)" = kept ] || fail "the volume went with its sandbox"
create_api '[{"name":"n","pvc":{"claimName":"cache","createIfNotExists":false},"readOnly":true,"mountPath":"/c"}]'
[ "$code" = 202 ] || fail "second create: $code $(cat "$TMP/api")"
inside "$ID" 'cat /c/f'
[ "$(cat "$TMP/out")" = kept ] || fail "a second sandbox does not see the volume"
delete_api "$ID"

t "deleteOnSandboxTermination removes a volume its sandbox made, never one that existed"
create_api '[{"name":"a","pvc":{"claimName":"scratch","deleteOnSandboxTermination":true},"mountPath":"/s"},
	{"name":"b","pvc":{"claimName":"cache","deleteOnSandboxTermination":true},"mountPath":"/c"}]'
[ "$code" = 202 ] || fail "create: $code $(cat "$TMP/api")"
[ -d "$ALLOX_HOME/volumes/scratch" ] || fail "scratch not made"
delete_api "$ID"
[ ! -e "$ALLOX_HOME/volumes/scratch" ] || fail "scratch survived"
[ -f "$ALLOX_HOME/volumes/cache/f" ] || fail "cache (pre-existing) was removed"

t "a symlink planted in a named volume does not lead a later subPath out"
ln -s "$TMP/secret" "$ALLOX_HOME/volumes/cache/out"
create_api '[{"name":"n","pvc":{"claimName":"cache"},"subPath":"out","mountPath":"/c"}]'
[ "$code" = 400 ] || fail "status $code: $(cat "$TMP/api")"
[ -z "$ID" ] || delete_api "$ID"

t "allox-cli: sandbox create -v HOST_DIR:/PATH:ro and -v NAME:/PATH"
run allox sandbox create -v "$SHARE/data:/mnt/cli:ro" -v cli-cache:/cache -o json
expect_rc 0
CID=$(jq -r .id "$TMP/out")
inside "$CID" 'cat /mnt/cli/greeting.txt && echo x >/cache/y && ! touch /mnt/cli/z'
expect_rc 0
expect_out_has hello
[ -f "$ALLOX_HOME/volumes/cli-cache/y" ] || fail "the named volume is not in \$ALLOX_HOME/volumes"

t "allox-cli: volume list shows named volumes and who mounts them"
run allox volume list -o json
expect_rc 0
jq -e --arg id "$CID" '.[] | select(.name == "cli-cache") | .used_by == [$id]' "$TMP/out" >/dev/null ||
	fail "list: $(cat "$TMP/out")"

t "allox-cli: volume rm refuses a mounted volume, then removes it"
run allox volume rm cli-cache
expect_rc 1
expect_err_has "is mounted by sandbox $CID"
run allox sandbox kill "$CID"
run allox volume rm cli-cache -o json
expect_rc 0
[ ! -e "$ALLOX_HOME/volumes/cli-cache" ] || fail "cli-cache is still there"
run allox volume rm cli-cache
expect_rc 1
expect_err_has "not found"

t "allox-cli: a malformed --volume is a usage error"
for v in nocolon /tmp:relative Bad_Name:/x "$SHARE:/x:rx" "$TMP/none:/x"; do
	run allox sandbox create -v "$v"
	[ "$rc" -eq 2 ] || fail "-v $v: exit $rc"
done

done_testing
