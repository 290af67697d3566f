#!/bin/sh
# The official OpenSandbox JavaScript e2e suite, unmodified, against a
# private allox-engine: what a client nobody here wrote can do with the
# local engine.
#
# - opensandbox-js-e2e/ is a verbatim copy of upstream's tests/javascript
#   (commit in its UPSTREAM file); the checksums below prove it unmodified,
#   on the copies that run.
# - sdk/package.json and sdk/package-lock.json pin the official SDK
#   (npm @alibaba-group/opensandbox) and vitest. `sdk.sh --install`, which
#   ./bootstrap runs, installs them with `npm ci` into a cache keyed by both
#   files ($ALLOX_SDK_CACHE, default
#   ${XDG_CACHE_HOME:-~/.cache}/allox-cli/opensandbox-sdk-KEY); the test
#   itself reaches nothing but loopback.
# - A private engine listens on loopback with an API key, in a temporary
#   ALLOX_HOME; the suite runs with OPENSANDBOX_SANDBOX_DEFAULT_IMAGE=host.
#   Before it, the fixtures upstream's CI prepares: the host directory
#   /tmp/opensandbox-e2e/host-volume-test (the tests name that path; removed
#   afterwards if this run made it) and the named volume
#   opensandbox-e2e-pvc-test (seeded through the API: sdk/seed_volumes.mjs).
# - sdk/allox_sdk.test.mjs, our own SDK-driven tests, run in the same vitest
#   run: what the exceptions below leave unchecked, and what upstream does
#   not cover (background logs with cursors, Range downloads, a 64 MiB
#   streamed upload with checksums, X-Request-ID).
# - sdk/verdict.mjs judges vitest's JSON report: every test passes except
#   the exceptions (not run, by vitest's own --testNamePattern) and the
#   pending ones (must fail, with the message given, until the named work
#   lands; one that passes is an error, so the list stays true).
#
# Environment: ALLOX_ENGINE (ALLOX_AGENT is passed on), TESTS_DIR; optional
# ALLOX_SDK_CACHE, ALLOX_SDK_ONLINE=1 (also run upstream 01a and 01aa, which
# need pypi.org and www.github.com), ALLOX_SDK_KEEP=1 (keep the temporary directory), CI or
# ALLOX_CI (set, as .ci/run does: a missing node, npm or root is a failure,
# not a skip).
# Needs root and bubblewrap (real sandboxes), node >= 20.18.1 and npm.
# JavaScript in single quotes, functions called from traps:
# shellcheck disable=SC2016,SC2119,SC2317
set -u

SRC=${TESTS_DIR:-tests}/conformance
# The SDK and vitest, installed once per lock file.
KEY=$(cat "$SRC/sdk/package.json" "$SRC/sdk/package-lock.json" | sha256sum | cut -c1-16)
CACHE_TOP=${ALLOX_SDK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/allox-cli}
CACHE=$CACHE_TOP/opensandbox-sdk-$KEY
install_sdk() {
	[ -f "$CACHE/.complete" ] && return 0
	mkdir -p "$CACHE_TOP" || exit 1
	STAGE=$(mktemp -d "$CACHE_TOP/.opensandbox-sdk.XXXXXX") || exit 1
	cp "$SRC/sdk/package.json" "$SRC/sdk/package-lock.json" "$STAGE/"
	echo "installing the OpenSandbox SDK and vitest into $CACHE"
	if ! (cd "$STAGE" && npm ci --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error); then
		rm -rf "$STAGE"
		echo "FAIL: npm ci of tests/conformance/sdk (is the npm registry reachable?)" >&2
		exit 1
	fi
	touch "$STAGE/.complete"
	# Atomic: a concurrent run that got there first wins, this copy goes.
	mv -T "$STAGE" "$CACHE" 2>/dev/null || rm -rf "$STAGE"
}

# `sdk.sh --install` (run by ./bootstrap) installs; a test run only uses the
# cache, so it reaches nothing but loopback.
if [ "${1:-}" = --install ]; then
	install_sdk
	exit
fi

: "${ALLOX_ENGINE:?ALLOX_ENGINE must point at the allox-engine binary}"

skip() {
	if [ -n "${CI:-}${ALLOX_CI:-}" ]; then
		echo "FAIL: $1 (CI runs this test always)" >&2
		exit 1
	fi
	echo "SKIP: $1"
	exit 77
}

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	skip "node and npm are not installed (Debian packages nodejs npm)"
fi
# undici 7, the SDK's HTTP client, needs node 20.18.1.
node -e 'const [a, b, c] = process.versions.node.split(".").map(Number);
	process.exit(a > 20 || (a === 20 && (b > 18 || (b === 18 && c >= 1))) ? 0 : 1)' ||
	skip "node $(node --version) is older than 20.18.1, which the OpenSandbox SDK needs"
if [ "$(id -u)" != 0 ] || [ ! -x /usr/bin/bwrap ]; then
	skip "needs root and /usr/bin/bwrap (real sandboxes)"
fi

[ -f "$CACHE/.complete" ] ||
	skip "the OpenSandbox SDK is not installed in $CACHE: run ./bootstrap (tests/conformance/sdk.sh --install)"

# The upstream suite and its checksums (sha256sum -c format).
SUMS='68d85a712cbaa55c84ecb096f2c8f6a061ee75cc9fe34f835ce045c30a205de0  base_e2e.ts
53ba4a1ad5031ccd37dea38748402f2496ee6b7b104a2076a26a7a399dc78750  test_credential_vault_e2e.test.ts
0a904b37e17c55a8cc70ea9e01924cd5a3e881ef64043255ec56e0aa2bcd4d9b  test_sandbox_e2e.test.ts
aa76e5fbdae0a82712c537b1c028d53871c8494d6553c40e71c9f73570fb985a  test_sandbox_manager_e2e.test.ts
53988a13171a2f44704c29e748947debffe8a478e63f030ffaf559b8f098273b  test_wait_until_ready_diagnostics.test.ts
d4e09b1eb934b6194d9f750985a632948e5f5619fc46a7b816e4fae686f03236  vitest.config.ts
1a120716660d74a90e384964cb76853244876a2743e97e3ae4fbbada39cdfb5c  UPSTREAM'

# Exceptions: not run. FILE|TITLE|why, and which of our tests checks the rest.
EXCLUDED='test_credential_vault_e2e.test.ts|credential vault injects all auth types|needs a transparent MITM credential proxy (credentialProxy), which the local engine does not have; checked instead: "allox cv" (such a create is a 400 naming credentialProxy)
test_credential_vault_e2e.test.ts|credential vault runtime mutation adds replaces and deletes binding|same as the other credential-vault test
test_sandbox_e2e.test.ts|01 sandbox lifecycle, health, endpoint, metrics, renew, connect|asserts the literal port 44772 (execd inside a Docker container) in the execd endpoint; the local engine hands out the agent'"'"'s own loopback port; the rest is "allox 01" and "allox 01m"'
# Unless ALLOX_SDK_ONLINE is set (tests reach only loopback): 01a and 01aa decide with
# `curl -I https://pypi.org` and `https://www.github.com`.
OFFLINE_EXCLUDED='test_sandbox_e2e.test.ts|01a sandbox create with networkPolicy|needs the internet (curl -I https://pypi.org must succeed); the same policy is checked by name resolution in "allox 01a"
test_sandbox_e2e.test.ts|01aa sandbox create with networkPolicy via server proxy|needs the internet (curl -I https://pypi.org); the rest is "allox 01aa"'

# Pending: fail until the named work lands. FILE|TITLE|work|failure message.
PENDING='test_sandbox_e2e.test.ts|01b sandbox create with host volume mount (read-write)|volumes (issue 23 item 2)|volumes: not supported
test_sandbox_e2e.test.ts|01c sandbox create with host volume mount (read-only)|volumes (issue 23 item 2)|volumes: not supported
test_sandbox_e2e.test.ts|01d sandbox create with PVC named volume mount (read-write)|volumes (issue 23 item 2)|volumes: not supported
test_sandbox_e2e.test.ts|01e sandbox create with PVC named volume mount (read-only)|volumes (issue 23 item 2)|volumes: not supported
test_sandbox_e2e.test.ts|01f sandbox create with PVC named volume subPath mount|volumes (issue 23 item 2)|volumes: not supported
allox_sdk.test.mjs|allox 01aa networkPolicy via server proxy (upstream 01aa without the internet)|server proxy (issue 23 item 4)|/sandboxes/'
ONLINE_PENDING='test_sandbox_e2e.test.ts|01aa sandbox create with networkPolicy via server proxy|server proxy (issue 23 item 4)|/sandboxes/'

. "${TESTS_DIR:-tests}/cli/lib.sh"
. "${TESTS_DIR:-tests}/cli/engine_lib.sh"

HOSTDIR=/tmp/opensandbox-e2e
MADE_HOSTDIR=""
cleanup() {
	trap - EXIT INT TERM
	stop_engine
	[ -n "$MADE_HOSTDIR" ] && rm -rf "$HOSTDIR"
	if [ -n "${ALLOX_SDK_KEEP:-}" ]; then echo "kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Tests reach nothing but loopback: upstream 01a and 01aa, which need
# pypi.org and www.github.com, run only when a developer asks for it
# (ALLOX_SDK_ONLINE=1). Otherwise the two names resolve from a hosts file
# the engine is given, to a documentation address nothing connects to.
if [ -n "${ALLOX_SDK_ONLINE:-}" ]; then
	echo "ALLOX_SDK_ONLINE: upstream 01a and 01aa run against the internet"
	PENDING="$PENDING
$ONLINE_PENDING"
else
	echo "offline: upstream 01a and 01aa are exceptions (see the list)"
	EXCLUDED="$EXCLUDED
$OFFLINE_EXCLUDED"
	printf '192.0.2.80 pypi.org www.github.com\n' >"$TMP/hosts"
	ALLOX_ENGINE_HOSTS_FILE=$TMP/hosts
	ALLOX_SDK_NAMES_RESOLVE_TO=192.0.2.80
	export ALLOX_ENGINE_HOSTS_FILE ALLOX_SDK_NAMES_RESOLVE_TO
fi

# The host volume of upstream 01b/01c.
if [ ! -e "$HOSTDIR" ]; then
	MADE_HOSTDIR=1
fi
mkdir -p "$HOSTDIR/host-volume-test" &&
	echo opensandbox-e2e-marker >"$HOSTDIR/host-volume-test/marker.txt" || exit 1
VOLUME_OPTS=""
if "$ALLOX_ENGINE" --help 2>&1 | grep -q -- '--allow-host-volumes'; then
	VOLUME_OPTS="--allow-host-volumes $HOSTDIR"
fi

# The engine, on a free loopback port, with an API key.
head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$TMP/api-key"
PORT=$(node -e 'const s = require("net").createServer();
	s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });')
# shellcheck disable=SC2086
"$ALLOX_ENGINE" --home "$ALLOX_HOME" --listen "127.0.0.1:$PORT" --api-key-file "$TMP/api-key" $VOLUME_OPTS \
	>"$TMP/engine.out" 2>&1 || { cat "$TMP/engine.out" >&2; exit 1; }
engine_up() {
	[ "$(curl -s -o /dev/null -w '%{http_code}' -H "OPEN-SANDBOX-API-KEY: $(cat "$TMP/api-key")" \
		"http://127.0.0.1:$PORT/v1/sandboxes")" = 200 ]
}
wait_until 20 engine_up || { echo "FAIL: the engine does not answer on 127.0.0.1:$PORT" >&2; cat "$ALLOX_HOME/engine.log" >&2; exit 1; }

export OPENSANDBOX_TEST_DOMAIN="127.0.0.1:$PORT"
OPENSANDBOX_TEST_API_KEY=$(cat "$TMP/api-key")
export OPENSANDBOX_TEST_API_KEY OPENSANDBOX_TEST_PROTOCOL=http OPENSANDBOX_SANDBOX_DEFAULT_IMAGE=host
unset OPENSANDBOX_CREDENTIAL_VAULT_E2E_TARGET_IP

# The suite, as it is, beside our tests and the packages.
RUN=$TMP/e2e
mkdir -p "$RUN"
cp "$SRC/opensandbox-js-e2e/"* "$SRC/sdk/allox_sdk.test.mjs" "$RUN/"
ln -s "$CACHE/node_modules" "$RUN/node_modules"
(cd "$RUN" && printf '%s\n' "$SUMS" | sha256sum --quiet -c -) ||
	{ echo "FAIL: opensandbox-js-e2e/ is not upstream's (checksums above)" >&2; exit 1; }

node "$SRC/sdk/seed_volumes.mjs" || echo "(the PVC tests will fail on the volume)"

# The lists for the verdict, and the name filter that leaves the exceptions out.
{
	printf '%s\n' "$EXCLUDED" | sed 's/^/exclude|/'
	printf '%s\n' "$PENDING" | sed 's/^/pending|/'
} | tr '|' '\t' >"$TMP/lists"
PATTERN=$(printf '%s\n' "$EXCLUDED" | cut -d'|' -f2 | node -e '
	const titles = require("fs").readFileSync(0, "utf8").split("\n").filter(Boolean);
	const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
	console.log(`^(?!.*(?:${titles.map(esc).join("|")})$)`);')

start=$(date +%s)
(cd "$RUN" && NO_COLOR=1 timeout 1200 ./node_modules/.bin/vitest run --reporter=verbose --reporter=json \
	--outputFile.json="$TMP/results.json" -t "$PATTERN") >"$TMP/vitest.log" 2>&1
vrc=$?
cat "$TMP/vitest.log"
echo "vitest: exit $vrc after $(($(date +%s) - start)) s"
[ -s "$TMP/results.json" ] || { echo "FAIL: vitest wrote no report" >&2; exit 1; }
node "$SRC/sdk/verdict.mjs" "$TMP/results.json" "$TMP/lists"
rc=$?
[ "$rc" -eq 0 ] || tail -n 60 "$ALLOX_HOME/engine.log" >&2
t "every sandbox of the run is gone, cgroups included"
expect_clean_stop
[ "$failed_cases" -eq 0 ] || rc=1
exit "$rc"
