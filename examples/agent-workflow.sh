#!/bin/sh
# The main job: an agent workflow on the embedded local engine, no Docker.
# Creates a sandbox (the engine starts on demand), runs commands in it, moves
# files in and out, runs Jupyter code, looks at its browser, calls MCP tools,
# saves V1, changes to V2 and restores V1, pauses and resumes it, extends its
# lifetime and removes it: the original README's demos 1, 2 and 4.
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

# A Jupyter kernel that keeps its state, and the sandbox's own Chromium
step aio jupyter run -c "print(2 + 2)" -o json
step aio jupyter run -c "x = 41"
step aio jupyter run -c "x + 1"
step aio browser info -o json

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
step aio screenshot -f "$work/allox-demo.png" -o json

# MCP: the built-in servers, and a browser tool on a page made in place
step aio mcp servers -o json
step aio mcp tools browser
step aio mcp call browser browser_navigate --arg url='data:text/html,<title>allox</title><h1>Hello from MCP</h1>'
step aio mcp call browser browser_get_text
step aio mcp call sandbox sandbox_execute_bash --arg cmd='echo from mcp'

# Save V1, change to V2, restore V1 (the source sandbox keeps running)
source_id=$("$cli" session current -o json | jq -r '.sandbox_id')
step aio exec -- sh -c "echo v1 > /home/gem/version.txt"
checkpoint_id=$("$cli" checkpoint create --name v1 -o json | jq -r '.id')
step aio exec -- sh -c "echo v2 > /home/gem/version.txt"
step checkpoint list
restored_id=$("$cli" checkpoint restore "$checkpoint_id" -o json | jq -r '.id')
step aio exec -- cat /home/gem/version.txt
[ "$("$cli" aio exec -- cat /home/gem/version.txt)" = v1 ] || { echo "agent-workflow: restore did not give v1" >&2; exit 1; }
step checkpoint delete "$checkpoint_id" -o json
step sandbox kill "$restored_id" -o json
step session use "$source_id"

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
