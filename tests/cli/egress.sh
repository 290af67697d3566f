#!/bin/sh
# Egress policy: a sandbox created with networkPolicy
# resolves only the names its policy allows and, when the policy denies by
# default, reaches only the addresses those names resolved to; the egress
# API (GET/PATCH/DELETE /policy behind the endpoint of port 18080) reads and
# changes the policy of a running sandbox; create fields the engine cannot
# honour are refused by name.
#
# Like network.sh, the whole test runs in a network namespace of its own
# (re-executed under unshare -n): the engine, the sandboxes' stacks and the
# stand-in upstreams (addresses on this namespace's loopback) live there.
# Names resolve through a hosts file the engine is given
# (ALLOX_ENGINE_HOSTS_FILE); nothing can reach past this machine.
if [ -z "${ALLOX_NET_TEST_NS:-}" ]; then
	ALLOX_NET_TEST_NS=1 exec unshare -n sh "$0" "$@"
fi
. "${TESTS_DIR:-tests}/cli/lib.sh"
. "${TESTS_DIR:-tests}/cli/engine_lib.sh"

[ -x /usr/bin/slirp4netns ] || { echo "SKIP: slirp4netns (Debian package slirp4netns) is not installed"; exit 77; }
ip link set lo up || { echo "cannot bring up the test's loopback" >&2; exit 1; }
ALLOWED=10.213.0.1
DENIED=10.213.0.2
WILD=10.213.0.3
for a in $ALLOWED $DENIED $WILD; do
	ip addr add "$a/32" dev lo
done
PORT=18432
SOCK="$ALLOX_HOME/run/engine.sock"

SERVERS=""
trap 'kill $SERVERS 2>/dev/null; stop_engine; rm -rf "$TMP"' EXIT
mkdir -p "$TMP/www"
for a in $ALLOWED $DENIED $WILD; do
	mkdir -p "$TMP/www/$a"
	echo "upstream $a" >"$TMP/www/$a/who.txt"
	(cd "$TMP/www/$a" && exec python3 -m http.server "$PORT" --bind "$a") >/dev/null 2>&1 &
	SERVERS="$SERVERS $!"
	wait_until 10 curl -s -o /dev/null "http://$a:$PORT/who.txt" || echo "server on $a did not start" >&2
done
cat >"$TMP/hosts" <<EOF
$ALLOWED allowed.test
$DENIED denied.test other.test
$WILD a.wild.test b.c.wild.test bad.wild.test wild.test
EOF
export ALLOX_ENGINE_HOSTS_FILE="$TMP/hosts"

# create_api BODY-FIELDS: POST /sandboxes with an image, an entrypoint and
# the given extra fields; the answer in $TMP/api, the status in $code.
create_api() {
	code=$(curl -s -o "$TMP/api" -w '%{http_code}' --unix-socket "$SOCK" -H 'Content-Type: application/json' \
		-d '{"image":{"uri":"host"},"entrypoint":["tail","-f","/dev/null"],"resourceLimits":{}'"$1"'}' \
		http://x/v1/sandboxes)
}

# egress_of ID: the egress API's base URL and token, from the lifecycle
# endpoint of port 18080 (as the official SDK resolves them).
egress_of() {
	curl -s --unix-socket "$SOCK" "http://x/v1/sandboxes/$1/endpoints/18080" >"$TMP/ep"
	EGRESS="http://$(jq -r .endpoint "$TMP/ep")"
	TOKEN=$(jq -r '.headers["OPENSANDBOX-EGRESS-AUTH"]' "$TMP/ep")
}

# policy_call METHOD [BODY]: the egress API of the sandbox egress_of chose.
policy_call() {
	code=$(curl -s -o "$TMP/pol" -w '%{http_code}' -X "$1" -H "OPENSANDBOX-EGRESS-AUTH: $TOKEN" \
		${2:+-H 'Content-Type: application/json' -d "$2"} "$EGRESS/policy")
}

# inside ID COMMAND: run a shell line in sandbox ID.
inside() {
	run allox run -- "$1" "$2"
}

# reaches ID NAME-OR-ADDRESS: the sandbox gets an upstream's page there.
reaches() {
	inside "$1" "curl -sS -m 5 http://$2:$PORT/who.txt"
	[ "$rc" -eq 0 ] && grep -q '^upstream ' "$TMP/out"
}

# resolves ID NAME: the sandbox's resolver answers NAME.
resolves() {
	inside "$1" "getent hosts $2"
	[ "$rc" -eq 0 ]
}

allox sandbox list >/dev/null 2>&1   # the engine starts with the hosts file in its environment

t "create with a deny-by-default policy: allowed names resolve and are reached, nothing else"
create_api ',"networkPolicy":{"defaultAction":"deny","egress":[{"action":"allow","target":"Allowed.Test."},
	{"action":"deny","target":"bad.wild.test"},{"action":"allow","target":"*.wild.test"}]}'
[ "$code" = 202 ] || fail "create: $code $(cat "$TMP/api")"
P=$(jq -r .id "$TMP/api")
jq -e '.networkPolicy == {"defaultAction":"deny","egress":[{"action":"allow","target":"allowed.test"},
	{"action":"deny","target":"bad.wild.test"},{"action":"allow","target":"*.wild.test"}]}' "$TMP/api" >/dev/null ||
	fail "the create answer's policy: $(cat "$TMP/api")"
resolves "$P" allowed.test || fail "allowed.test does not resolve"
expect_out_has "$ALLOWED"
reaches "$P" allowed.test || fail "allowed.test not reached"
resolves "$P" denied.test && fail "denied.test resolves"
reaches "$P" denied.test && fail "denied.test reached"
# By address: only what an allowed name resolved to.
reaches "$P" "$DENIED" && fail "$DENIED reached without a name"
reaches "$P" "$ALLOWED" || fail "$ALLOWED (allowed.test's) not reached"
# Other ways out: the stack's own DNS forwarder, its gateway.
inside "$P" 'getent hosts denied.test 10.0.2.3; curl -sS -m 3 http://10.0.2.2/'
[ "$rc" -ne 0 ] || fail "other ways out"

t "wildcards match subdomains only, and the first matching rule wins"
resolves "$P" a.wild.test || fail "a.wild.test"
resolves "$P" b.c.wild.test || fail "b.c.wild.test"
reaches "$P" a.wild.test || fail "a.wild.test not reached"
resolves "$P" wild.test && fail "wild.test itself resolves"
resolves "$P" bad.wild.test && fail "bad.wild.test resolves (its deny rule comes first)"

t "the filter sits in the sandbox's namespace, the test's own tables are untouched"
nsenter -t "$(jq -r .runtime.initPid "$STATE/$P/record.json")" -n nft list table inet allox_egress >"$TMP/out" 2>"$TMP/err" ||
	fail "no table in the sandbox's namespace"
expect_out_has "$ALLOWED"
expect_out_has "$WILD"
[ -z "$(nft list ruleset 2>/dev/null)" ] || fail "the engine's own namespace has rules: $(nft list ruleset)"
inside "$P" 'nft flush ruleset 2>&1; ip route add 10.213.0.0/24 dev eth0 2>&1'
inside "$P" "curl -sS -m 3 http://$DENIED:$PORT/who.txt"
[ "$rc" -ne 0 ] || fail "the sandbox loosened its own filter"

t "the endpoint of port 18080 leads to the egress API, behind a token"
egress_of "$P"
case "$EGRESS" in http://127.0.0.1:*/egress/"$P") ;; *) fail "egress endpoint $EGRESS" ;; esac
[ ${#TOKEN} -ge 32 ] || fail "token '$TOKEN'"
policy_call GET
[ "$code" = 200 ] || fail "GET /policy: $code $(cat "$TMP/pol")"
jq -e '. == {"status":"ok","mode":"deny_all","enforcementMode":"dns+nft","policy":{"defaultAction":"deny","egress":[
	{"action":"allow","target":"allowed.test"},{"action":"deny","target":"bad.wild.test"},
	{"action":"allow","target":"*.wild.test"}]}}' "$TMP/pol" >/dev/null || fail "GET /policy: $(cat "$TMP/pol")"
code=$(curl -s -o "$TMP/pol" -w '%{http_code}' "$EGRESS/policy")
[ "$code" = 401 ] || fail "without the token: $code"
code=$(curl -s -o "$TMP/pol" -w '%{http_code}' -H 'OPENSANDBOX-EGRESS-AUTH: nope' -X PATCH \
	-d '[{"action":"allow","target":"denied.test"}]' "$EGRESS/policy")
[ "$code" = 401 ] || fail "PATCH with a wrong token: $code"
# The sandbox cannot reach the API (the host's loopback is out of its reach).
inside "$P" "curl -sS -m 3 -H 'OPENSANDBOX-EGRESS-AUTH: $TOKEN' ${EGRESS#http://}/policy"
grep -q deny_all "$TMP/out" && fail "the sandbox read its own policy"

t "PATCH /policy takes effect in the running sandbox: incoming rules first, the first of a target wins"
policy_call PATCH '[{"action":"allow","target":"denied.test"},{"action":"deny","target":"allowed.test"},
	{"action":"allow","target":"allowed.test"}]'
[ "$code" = 200 ] || fail "PATCH: $code $(cat "$TMP/pol")"
jq -e '.status == "ok" and .mode == "deny_all" and .policy.egress[0] == {"action":"allow","target":"denied.test"}
	and .policy.egress[1] == {"action":"deny","target":"allowed.test"} and (.policy.egress | length) == 4' \
	"$TMP/pol" >/dev/null || fail "PATCH answer: $(cat "$TMP/pol")"
resolves "$P" denied.test || fail "denied.test, now allowed, does not resolve"
reaches "$P" denied.test || fail "denied.test, now allowed, not reached"
resolves "$P" allowed.test && fail "allowed.test, now denied, resolves"
reaches "$P" "$ALLOWED" && fail "$ALLOWED still reached after allowed.test was denied"
reaches "$P" a.wild.test || fail "a.wild.test lost its address in the change"
run allox sandbox get "$P" -o json
jq -e '.egress_default == "deny" and
	.egress_rules == "allow denied.test, deny allowed.test, deny bad.wild.test, allow *.wild.test"' "$TMP/out" \
	>/dev/null || fail "sandbox get after PATCH"

t "DELETE /policy removes rules by target; bad bodies are 400 (text)"
policy_call DELETE '["denied.test","not-there.test"]'
[ "$code" = 200 ] || fail "DELETE: $code $(cat "$TMP/pol")"
jq -e '[.policy.egress[].target] == ["allowed.test","bad.wild.test","*.wild.test"]' "$TMP/pol" >/dev/null ||
	fail "DELETE answer: $(cat "$TMP/pol")"
resolves "$P" denied.test && fail "denied.test resolves after its rule went"
for body in '[]' '{"action":"allow"}' '[{"action":"allow","target":"10.0.0.1"}]' '[{"action":"allow"}]' 'nope'; do
	policy_call PATCH "$body"
	[ "$code" = 400 ] || fail "PATCH $body: $code"
done
policy_call PATCH '[{"action":"allow","target":"10.0.0.1"}]'
grep -q 'egress\[0\].target' "$TMP/pol" || fail "message: $(cat "$TMP/pol")"

t "allow by default: denied names do not resolve, the rest is open"
create_api ',"networkPolicy":{"defaultAction":"allow","egress":[{"action":"deny","target":"denied.test"}]}'
[ "$code" = 202 ] || fail "create: $code $(cat "$TMP/api")"
A=$(jq -r .id "$TMP/api")
resolves "$A" denied.test && fail "denied.test resolves"
reaches "$A" allowed.test || fail "allowed.test not reached"
reaches "$A" other.test || fail "other.test not reached"
egress_of "$A"
policy_call GET
jq -e '.mode == "allow_all" and .enforcementMode == "dns"' "$TMP/pol" >/dev/null || fail "GET: $(cat "$TMP/pol")"
policy_call PATCH '[{"action":"deny","target":"other.test"}]'
resolves "$A" other.test && fail "other.test resolves after PATCH"
allox sandbox kill "$A" >/dev/null

t "an empty policy allows everything, and can be changed later"
create_api ',"networkPolicy":{}'
[ "$code" = 202 ] || fail "create: $code $(cat "$TMP/api")"
E=$(jq -r .id "$TMP/api")
reaches "$E" denied.test || fail "denied.test not reached"
egress_of "$E"
policy_call PATCH '[{"action":"deny","target":"denied.test"}]'
[ "$code" = 200 ] || fail "PATCH: $code"
resolves "$E" denied.test && fail "denied.test resolves after PATCH"
allox sandbox kill "$E" >/dev/null

t "sandbox create --allow-domain / --deny-domain, and sandbox get shows the policy"
run allox sandbox create --allow-domain allowed.test --allow-domain '*.wild.test' --deny-domain bad.wild.test -o json
expect_rc 0
C=$(jq -r .id "$TMP/out")
jq -e '.networkPolicy == {"defaultAction":"deny","egress":[{"action":"deny","target":"bad.wild.test"},
	{"action":"allow","target":"allowed.test"},{"action":"allow","target":"*.wild.test"}]}' "$STATE/$C/record.json" \
	>/dev/null || fail "the policy sent: $(jq -c .networkPolicy "$STATE/$C/record.json")"
run allox sandbox get "$C" -o json
jq -e '.network == "isolated" and .egress_default == "deny" and
	.egress_rules == "deny bad.wild.test, allow allowed.test, allow *.wild.test"' "$TMP/out" >/dev/null ||
	fail "sandbox get -o json"
run allox sandbox get "$C"
expect_out_has "egress_rules"
expect_out_has "deny bad.wild.test, allow allowed.test"
reaches "$C" allowed.test || fail "allowed.test not reached"
resolves "$C" bad.wild.test && fail "bad.wild.test resolves"
reaches "$C" other.test && fail "other.test reached"
allox sandbox kill "$C" >/dev/null
# --deny-domain alone: everything else stays open.
run allox sandbox create --deny-domain denied.test -o json
expect_rc 0
C=$(jq -r .id "$TMP/out")
run allox sandbox get "$C" -o json
jq -e '.egress_default == "allow" and .egress_rules == "deny denied.test"' "$TMP/out" >/dev/null || fail "get: allow"
reaches "$C" other.test || fail "other.test not reached"
resolves "$C" denied.test && fail "denied.test resolves"
allox sandbox kill "$C" >/dev/null
run allox sandbox create --network none --allow-domain allowed.test
expect_rc 2
expect_err_has "--network none"
run allox sandbox create --allow-domain ''
expect_rc 2
run allox sandbox create --allow-domain 10.0.0.1
expect_rc 1
expect_err_has "IP and CIDR targets are not supported"

t "a sandbox without a policy: the egress API answers, and refuses changes"
create_api ''
N=$(jq -r .id "$TMP/api")
egress_of "$N"
policy_call GET
jq -e '.status == "ok" and .mode == "allow_all" and .enforcementMode == "none" and .policy.defaultAction == "allow"' \
	"$TMP/pol" >/dev/null || fail "GET: $(cat "$TMP/pol")"
policy_call PATCH '[{"action":"deny","target":"denied.test"}]'
[ "$code" = 400 ] || fail "PATCH: $code"
grep -q 'without networkPolicy' "$TMP/pol" || fail "message: $(cat "$TMP/pol")"
run allox sandbox get "$N" -o json
jq -e 'has("egress_default") | not' "$TMP/out" >/dev/null || fail "get shows a policy for a sandbox without one"
allox sandbox kill "$N" >/dev/null

t "a restarted engine resolves for the sandboxes it adopts; the filter held meanwhile"
pid=$(engine_pid)
kill "$pid"
wait_until 10 gone "$pid"
reaches "$P" "$DENIED" && fail "$DENIED reached while the engine was down"
allox sandbox list >/dev/null 2>&1
resolves "$P" a.wild.test || fail "no resolver after the restart"
resolves "$P" denied.test && fail "denied.test resolves after the restart"

t "create fields the engine cannot honour are 400s that name them"
for case in '"volumes":[{"name":"v","mountPath":"/data","host":{"path":"/tmp"}}]|volumes' \
	'"secureAccess":true|secureAccess' '"credentialProxy":{"enabled":true}|credentialProxy' \
	'"platform":{"os":"windows","arch":"amd64"}|platform.os' '"platform":{"os":"linux","arch":"s390x"}|platform.arch' \
	'"frobnicate":1|frobnicate' '"extensions":{"poolRef":"p"}|extensions.poolRef' \
	'"networkPolicy":{"defaultAction":"deny","egress":[{"action":"allow","target":"10.0.0.0/8"}]}|networkPolicy.egress[0].target' \
	'"networkPolicy":{"defaultAction":"block"}|networkPolicy.defaultAction' \
	'"networkPolicy":{"egress":[],"extra":1}|networkPolicy.extra' \
	'"networkPolicy":{},"extensions":{"allox.network":"host"}|networkPolicy'; do
	create_api ",${case%|*}"
	[ "$code" = 400 ] || fail "${case%|*}: $code $(cat "$TMP/api")"
	jq -e --arg f "${case##*|}" '.message | startswith($f)' "$TMP/api" >/dev/null ||
		fail "${case%|*}: message $(jq -r .message "$TMP/api")"
done
code=$(curl -s -o "$TMP/api" -w '%{http_code}' --unix-socket "$SOCK" -H 'Content-Type: application/json' \
	-d '{"image":{"uri":"host"},"entrypoint":["true"],"resourceLimits":{"cpu":"1","gpu":"1"}}' http://x/v1/sandboxes)
[ "$code" = 400 ] && jq -e '.message | startswith("resourceLimits.gpu")' "$TMP/api" >/dev/null ||
	fail "gpu: $code $(cat "$TMP/api")"
# What asks for nothing passes: what the official SDK sends by default.
create_api ',"secureAccess":false,"volumes":[],"extensions":{},"credentialProxy":{"enabled":false},"platform":{"os":"linux","arch":"'"$(uname -m | sed 's/x86_64/amd64/; s/aarch64/arm64/')"'"}'
[ "$code" = 202 ] || fail "trivially honoured fields: $code $(cat "$TMP/api")"
allox sandbox kill "$(jq -r .id "$TMP/api")" >/dev/null 2>&1

t "the resolver goes with its sandbox"
sockets() {
	ls -l "/proc/$(engine_pid)/fd" 2>/dev/null | grep -c 'socket:'
}
before=$(sockets)
run allox sandbox kill "$P"
expect_rc 0
[ "$(sockets)" -le $((before - 2)) ] || fail "the engine still holds the resolver's sockets ($before, now $(sockets))"

stop_engine
done_testing
