#!/bin/sh
# The main job until the local engine lands: help, a configuration round trip
# and the current-session commands, in a private ALLOX_HOME.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
cli=${ALLOX_CLI:-$here/allox-cli}
export ALLOX_HOME="${ALLOX_HOME:-$(mktemp -d)}"

"$cli" --version
"$cli" --help
"$cli" config init
"$cli" config set connection.protocol https
"$cli" config set checkpoint.operations run,aio.exec
"$cli" config show
"$cli" config show -o json
"$cli" session use demo-sandbox
"$cli" session current -o yaml
"$cli" session clear
echo "quickstart: ok (ALLOX_HOME=$ALLOX_HOME)"
