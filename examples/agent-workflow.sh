#!/bin/sh
# The main job: an agent workflow on the embedded local engine, no Docker.
# Creates a sandbox (the engine starts on demand), inspects it, pauses and
# resumes it, extends its lifetime and removes it again.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
cli=${ALLOX_CLI:-$here/allox-cli}
export ALLOX_HOME="${ALLOX_HOME:-$(mktemp -d /tmp/allox-demo.XXXXXX)}"

step() { printf '\n$ allox-cli %s\n' "$*"; "$cli" "$@"; }

step --version
step sandbox create --timeout 30m -o json
step session current -o json
step sandbox list
step sandbox get
step sandbox endpoint -o yaml
step sandbox pause -o json
step sandbox resume -o json
step sandbox renew --timeout 1h -o json
step sandbox kill -o json
printf '\n$ allox-cli session current   # expected to fail: the sandbox is gone\n'
if "$cli" session current; then
	echo "agent-workflow: the session should have been cleared" >&2
	exit 1
fi
kill "$(cat "$ALLOX_HOME/run/engine.pid")" 2>/dev/null || true
echo "agent-workflow: ok (ALLOX_HOME=$ALLOX_HOME)"
