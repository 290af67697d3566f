#!/bin/sh
# The main job: an agent workflow on the embedded local engine, no Docker.
# Creates a sandbox (the engine starts on demand), runs commands in it, moves
# files in and out, pauses and resumes it, extends its lifetime and removes it.
# It follows the original README's first demo as far as this build goes.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
cli=${ALLOX_CLI:-$here/allox-cli}
export ALLOX_HOME="${ALLOX_HOME:-$(mktemp -d /tmp/allox-demo.XXXXXX)}"

step() { printf '\n$ allox-cli %s\n' "$*"; "$cli" "$@"; }

step --version
step sandbox create --timeout 30m -o json
step session current -o json

# Shell, through the AIO API and through execd
step aio exec -- python3 -c "print('hello from allox')"
step run -- sh -c 'echo "kernel: $(uname -r)"; ls /home/gem'

# Single files and trees, both ways
work=$(mktemp -d /tmp/allox-demo-files.XXXXXX)
step file upload "$here/README.md" /tmp/allox-README.md -o json
"$cli" aio read /tmp/allox-README.md | head -n 3
step file download /tmp/allox-README.md "$work/README.from-allox.md" -o json
cmp "$here/README.md" "$work/README.from-allox.md"
mkdir -p "$work/.allox-demo/nested"
printf 'hello\n' > "$work/.allox-demo/nested/result.txt"
step file upload --recursive "$work/.allox-demo" /tmp/allox-demo -o json
step file download --recursive /tmp/allox-demo "$work/allox-demo-output" -o json
diff -r "$work/.allox-demo" "$work/allox-demo-output"

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
rm -rf "$work"
echo "agent-workflow: ok (ALLOX_HOME=$ALLOX_HOME)"
