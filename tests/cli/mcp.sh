#!/bin/sh
# MCP in sandboxes against a real local engine: the seed README's demo 4,
# real third-party servers from npm declared in the profile
# (@modelcontextprotocol/server-everything and server-filesystem), the
# built-in sandbox server, a fixture server for what real servers do not do
# on demand (server->client requests, pagination, junk, crashes), a server
# killed between calls, the /mcp Streamable HTTP endpoint driven with curl
# and with the official TypeScript SDK's client, and the client's fallback
# to /mcp when the REST bridge is missing.
# Browser cases run when GET /v1/browser/info works, else they are skipped.
. "${TESTS_DIR:-tests}/cli/lib.sh"
. "${TESTS_DIR:-tests}/cli/engine_lib.sh"

SRC=${TESTS_DIR:-tests}
NM="$SRC/conformance/node_modules"
if [ ! -f "$NM/@modelcontextprotocol/server-everything/package.json" ] ||
	[ ! -f "$NM/@modelcontextprotocol/server-filesystem/package.json" ] ||
	[ ! -f "$NM/@modelcontextprotocol/sdk/package.json" ]; then
	echo "SKIP: the MCP test servers are not installed (npm ci --prefix tests/conformance)"
	exit 77
fi

# The sandbox sees the host's system directories only: the servers (with
# their dependencies) and the fixture are copied in once, as a tarball.
MCP=/home/gem/mcp/node_modules/@modelcontextprotocol
mkdir -p "$ALLOX_HOME"
cat > "$ALLOX_HOME/config.toml" <<TOML
[mcp.servers.everything]
command = ["node", "$MCP/server-everything/dist/index.js", "stdio"]
env = { ALLOX_MCP_TEST = "from-the-profile" }

[mcp.servers.files]
command = ["node", "$MCP/server-filesystem/dist/index.js", "/home/gem/work"]
cwd = "/home/gem"

[mcp.servers.fixture]
command = ["python3", "/home/gem/mcp_fixture.py"]
TOML

node "$SRC/cli/mcp_node_closure.js" "$SRC/conformance" @modelcontextprotocol/server-everything \
	@modelcontextprotocol/server-filesystem > "$TMP/closure" || { echo "cannot list the servers' packages"; exit 1; }
# shellcheck disable=SC2046 # one word per package directory
tar czf "$TMP/mcp.tgz" -C "$SRC/conformance" $(cat "$TMP/closure") || exit 1

allox sandbox create -o json > "$TMP/created" || { echo "cannot create a sandbox"; exit 1; }
ID=$(jq -r .id "$TMP/created")
URL=$(jq -r .aio_url "$TMP/created")
TOKEN=$(jq -r .runtime.token "$STATE/$ID/record.json")
allox file upload "$TMP/mcp.tgz" /home/gem/mcp.tgz >/dev/null &&
	allox file upload "$SRC/cli/mcp_fixture.py" /home/gem/mcp_fixture.py >/dev/null &&
	allox run -- sh -c 'mkdir -p /home/gem/mcp /home/gem/work && tar xzf /home/gem/mcp.tgz -C /home/gem/mcp' ||
	{ echo "cannot copy the servers into the sandbox"; exit 1; }

# agent_curl ARGS...: curl to the sandbox's agent with its token; body in $TMP/out, headers in $TMP/headers.
agent_curl() {
	code=$(curl -s --max-time 120 -D "$TMP/headers" -o "$TMP/out" -w '%{http_code}' \
		-H "X-EXECD-ACCESS-TOKEN: $TOKEN" "$@")
	: > "$TMP/err"
}

# mcp_post SESSION BODY: POST BODY to /mcp with the session header when SESSION is not empty.
mcp_post() {
	if [ -n "$1" ]; then
		agent_curl -H 'Content-Type: application/json' -H "Mcp-Session-Id: $1" -d "$2" "$URL/mcp"
	else
		agent_curl -H 'Content-Type: application/json' -d "$2" "$URL/mcp"
	fi
}

jq_out() {
	jq -e "$@" "$TMP/out" >/dev/null || fail "stdout fails jq: $*"
}

t "demo 4: aio mcp servers -o json lists the built-in and the profile's servers"
run allox aio mcp servers -o json
expect_rc 0
jq_out --arg id "$ID" '.sandbox_id == $id and .servers == ["sandbox", "browser", "everything", "files", "fixture"]'
jq_out '.details[2].log == "/home/gem/.cache/allox-mcp/everything.log" and .details[2].type == "stdio"
	and .details[2].running == false and .details[0].type == "builtin"'

t "aio mcp servers table names each configured server's log"
run allox aio mcp servers
expect_rc 0
expect_out_has "MCP Servers ($ID)"
expect_out_has "/home/gem/.cache/allox-mcp/fixture.log"

t "aio mcp servers and tools -o yaml carry the json document, not the table's rows"
for args in "servers" "tools browser"; do
	# shellcheck disable=SC2086
	run allox aio mcp $args -o json
	jq -S . "$TMP/out" > "$TMP/a.json"
	# shellcheck disable=SC2086
	run allox aio mcp $args -o yaml
	expect_rc 0
	/usr/bin/python3 -c 'import sys, yaml, json; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))' "$TMP/out" |
		jq -S . > "$TMP/b.json"
	cmp -s "$TMP/a.json" "$TMP/b.json" || fail "aio mcp $args: yaml differs from json"
done

t "demo 4: aio mcp tools browser -o json"
run allox aio mcp tools browser -o json
expect_rc 0
jq_out '.server == "browser" and ([.tools[].name] == ["browser_navigate", "browser_screenshot", "browser_evaluate",
	"browser_get_text"]) and (.tools | all(.inputSchema.type == "object"))'

if agent_curl "$URL/v1/browser/info" && [ "$code" = 200 ]; then
	t "demo 4: browser_navigate to a data: URL, then its text, a script and a screenshot"
	run allox aio mcp call browser browser_navigate \
		--args '{"url":"data:text/html,<title>MCP demo</title><p>hello from the page</p>"}'
	expect_rc 0
	expect_out_has "MCP demo"
	run allox aio mcp call browser browser_get_text
	expect_rc 0
	expect_out_has "hello from the page"
	run allox aio mcp call browser browser_evaluate --arg script='6 * 7'
	expect_rc 0
	expect_out "42"
	run allox aio mcp call browser browser_screenshot --save-images "$TMP/shots"
	expect_rc 0
	expect_out_has "[image/png saved to $TMP/shots/browser_screenshot_1.png]"
	printf '\211PNG' | cmp -s -n 4 - "$TMP/shots/browser_screenshot_1.png" || fail "not a PNG"
else
	echo "SKIP: browser tool calls (GET /v1/browser/info answered $code: the browser module is not built)"
	t "browser tools fail as tool errors while the browser module is missing"
	run allox aio mcp call browser browser_navigate --arg url=data:text/html,x
	expect_rc 1
	expect_out "browser module not built"
	expect_err_has "MCP tool 'browser/browser_navigate' failed"
fi

t "a real server from the profile: its tools, without the ones that need sampling or elicitation"
run allox aio mcp tools everything -o json
expect_rc 0
jq_out '[.tools[].name] | index("echo") and index("get-structured-content") and index("get-tiny-image")
	and (index("trigger-sampling-request") | not) and (index("trigger-elicitation-request") | not)'
run allox aio mcp tools everything
expect_rc 0
expect_out_has "MCP Tools: everything"
expect_out_has "Echoes back the input string"

t "echo: text content"
run allox aio mcp call everything echo --args '{"message":"hi there"}'
expect_rc 0
expect_out "Echo: hi there"

t "--arg values are JSON when they parse, strings otherwise"
run allox aio mcp call everything get-sum --arg a=2 --arg b=40
expect_rc 0
expect_out "The sum of 2 and 40 is 42."
run allox aio mcp call everything echo --args '{"message":"overridden"}' --arg message=007 -o json
expect_rc 0
jq_out '.request == {"message": "007"}'
run allox aio mcp call everything echo --arg 'message=not json'
expect_out "Echo: not json"

t "structured content: raw shows it as JSON, -o json keeps the whole result"
run allox aio mcp call everything get-structured-content --arg "location=New York" -o json
expect_rc 0
jq_out '.server == "everything" and .tool == "get-structured-content" and .request == {"location": "New York"}
	and (.result.structuredContent | has("temperature") and has("conditions") and has("humidity"))'
run allox aio mcp call everything get-structured-content --arg "location=New York"
expect_rc 0
expect_out_has '  "temperature": '

t "image content: summarised, or saved with --save-images"
run allox aio mcp call everything get-tiny-image
expect_rc 0
grep -qE '^\[image/png, [0-9]+ bytes\]$' "$TMP/out" || fail "no image summary"
run allox aio mcp call everything get-tiny-image --save-images "$TMP/img" -o json
expect_rc 0
jq_out --arg p "$TMP/img/get-tiny-image_1.png" '.saved_images == [$p]'
printf '\211PNG' | cmp -s -n 4 - "$TMP/img/get-tiny-image_1.png" || fail "not a PNG"

t "the profile's env reaches the server"
run allox aio mcp call everything get-env
expect_rc 0
expect_out_has '"ALLOX_MCP_TEST": "from-the-profile"'

t "--timeout ends a call that takes too long (the server is told); its next call is answered"
run allox aio mcp call everything trigger-long-running-operation --arg duration=30 --arg steps=3 -t 2
expect_rc 1
expect_err_has "AIO API error (504): MCP server 'everything': tools/call timed out"
run allox aio mcp call everything echo --arg message=after
expect_rc 0
expect_out "Echo: after"

t "isError exits 1 after printing the tool's text"
run allox aio mcp call everything get-structured-content --arg location=Paris
expect_rc 1
expect_out_has "Input validation error"
expect_err "Error: MCP tool 'everything/get-structured-content' failed"
run allox aio mcp call everything get-structured-content --arg location=Paris -o json
expect_rc 1
jq_out '.result.isError == true'

t "server-filesystem: write with the sandbox server, list and read with it"
run allox aio mcp call sandbox sandbox_file_operations --arg action=write --arg path=/home/gem/work/note.txt \
	--arg content='written through MCP'
expect_rc 0
run allox aio mcp call files list_directory --arg path=/home/gem/work
expect_rc 0
expect_out_has "[FILE] note.txt"
run allox aio mcp call files read_text_file --arg path=/home/gem/work/note.txt
expect_rc 0
expect_out_has "written through MCP"
run allox aio mcp call files read_text_file --arg path=/etc/hostname
expect_rc 1
expect_out_has "Access denied"

t "a server's stderr goes to its log in the sandbox"
run allox aio read /home/gem/.cache/allox-mcp/everything.log
expect_rc 0
expect_out_has "Starting default (STDIO) server"

t "a server killed between calls comes back on the next call"
allox aio mcp servers -o json > "$TMP/servers"
pid=$(jq '.details[] | select(.name == "everything") | .pid' "$TMP/servers")
[ -n "$pid" ] && [ "$pid" != null ] || fail "no pid for everything"
allox run -- kill -9 "$pid" || fail "cannot kill it"
server_down() {
	allox aio mcp servers -o json | jq -e '.details[] | select(.name == "everything") | .running == false' >/dev/null
}
wait_until 30 server_down || fail "still running"
run allox aio mcp servers -o json
jq_out '.details[] | select(.name == "everything") | .last_exit == "killed by signal 9 (Killed)"'
run allox aio mcp call everything echo --arg message=again
expect_rc 0
expect_out "Echo: again"
run allox aio mcp servers -o json
jq_out --argjson old "$pid" '.details[] | select(.name == "everything") | .running and .restarts == 1 and .pid != $old'

t "requests a server sends the client get JSON-RPC errors, never a hang (sampling, elicitation, roots); ping is answered"
run timeout 120 "$ALLOX_CLI" aio mcp call fixture ask
expect_rc 0
expect_out "elicitation/create: error -32601; ping: result {}; roots/list: error -32601; sampling/createMessage: error -32601"

t "tools/list follows nextCursor"
run allox aio mcp tools fixture -o json
expect_rc 0
jq_out '[.tools[].name] == ["ask", "noisy", "crash"]'

t "notifications, non-JSON lines and replies to other ids are skipped"
run allox aio mcp call fixture noisy
expect_rc 0
expect_out "quiet now"

t "a server that dies during a call: an error naming its log; the next call starts it again"
run allox aio mcp call fixture crash
expect_rc 1
expect_err_has "MCP server 'fixture' exited (exit status 3)"
expect_err_has "/home/gem/.cache/allox-mcp/fixture.log"
run allox aio mcp call fixture noisy
expect_rc 0
expect_out "quiet now"
run allox aio read /home/gem/.cache/allox-mcp/fixture.log
expect_out_has "crashing on purpose"

t "the built-in sandbox server: shell, files and Jupyter"
run allox aio mcp tools sandbox -o json
jq_out '[.tools[].name] == ["sandbox_execute_bash", "sandbox_file_operations", "sandbox_execute_code", "sandbox_get_context"]'
run allox aio mcp call sandbox sandbox_execute_bash --arg cmd='echo out; echo err >&2; exit 3' -o json
expect_rc 0
jq_out '.result.content == [{"type": "text", "text": "out\nerr\n[exit code 3]\n"}] and .result.isError == false'
run allox aio mcp call sandbox sandbox_file_operations --arg action=read --arg path=/home/gem/work/note.txt
expect_out "written through MCP"
run allox aio mcp call sandbox sandbox_file_operations --arg action=list --arg path=/home/gem
expect_out_has "work/"
run allox aio mcp call sandbox sandbox_file_operations --arg action=read --arg path=/nonexistent
expect_rc 1
expect_out "/nonexistent: No such file or directory"
run allox aio mcp call sandbox sandbox_execute_code --arg code='print(6 * 7)'
expect_rc 0
expect_out "42"
run allox aio mcp call sandbox sandbox_execute_code --arg code='1/0'
expect_rc 1
expect_out_has "ZeroDivisionError: division by zero"

t "malformed --args exits 2"
run allox aio mcp call everything echo --args '{"message":'
expect_rc 2
expect_err_has "Invalid JSON for --args"
run allox aio mcp call everything echo --args '["a"]'
expect_rc 2
expect_err_has "--args must be a JSON object"

t "an unknown server or tool exits 1 and lists what exists"
run allox aio mcp call nosuch echo
expect_rc 1
expect_err "Error: MCP server 'nosuch' not found. Servers: sandbox, browser, everything, files, fixture"
run allox aio mcp tools nosuch
expect_rc 1
expect_err_has "Servers: sandbox, browser, everything, files, fixture"
run allox aio mcp call fixture nosuch
expect_rc 1
expect_err "Error: MCP tool 'nosuch' not found on server 'fixture'. Tools: ask, noisy, crash"

t "the REST bridge's shapes (AIO envelope)"
agent_curl "$URL/v1/mcp/servers"
[ "$code" = 200 ] || fail "HTTP $code"
jq_out '.success == true and (.data | type == "array") and (.hint | test("allox-mcp"))'
agent_curl "$URL/v1/mcp/nosuch/tools"
[ "$code" = 404 ] || fail "HTTP $code"
jq_out '.success == false and (.message | test("not found in configuration"))'
agent_curl -X POST -d '[1]' "$URL/v1/mcp/everything/tools/echo"
[ "$code" = 422 ] || fail "HTTP $code"
agent_curl -X POST -d '{"message":"bridge"}' "$URL/v1/mcp/everything/tools/echo"
[ "$code" = 200 ] || fail "HTTP $code"
jq_out '.success == true and .data.content == [{"type": "text", "text": "Echo: bridge"}]'

t "/mcp: initialize gives a session; tools/list and tools/call with prefixed names"
mcp_post "" '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
[ "$code" = 200 ] || fail "initialize: HTTP $code"
jq_out '.id == 1 and .result.protocolVersion == "2025-06-18" and .result.capabilities.tools != null
	and .result.serverInfo.name == "allox-agent"'
SID=$(sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: *\([!-~]*\).*/\1/p' "$TMP/headers")
[ ${#SID} -eq 32 ] || fail "session id '$SID'"
mcp_post "$SID" '{"jsonrpc":"2.0","method":"notifications/initialized"}'
[ "$code" = 202 ] || fail "initialized: HTTP $code"
mcp_post "$SID" '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
[ "$code" = 200 ] || fail "tools/list: HTTP $code"
jq_out '.id == 2 and ([.result.tools[].name] | index("everything_echo") and index("sandbox_execute_bash")
	and index("browser_navigate") and index("fixture_ask") and index("files_read_text_file"))'
jq_out '.result.tools[] | select(.name == "everything_echo") | ._meta["allox/server"] == "everything"'
mcp_post "$SID" '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"everything_echo","arguments":{"message":"via /mcp"}}}'
jq_out '.id == 3 and .result.content == [{"type": "text", "text": "Echo: via /mcp"}]'
mcp_post "$SID" '{"jsonrpc":"2.0","id":"four","method":"tools/call","params":{"name":"everything_nosuch","arguments":{}}}'
jq_out '.id == "four" and .error.code == -32602'
mcp_post "$SID" '{"jsonrpc":"2.0","id":5,"method":"ping"}'
jq_out '.id == 5 and .result == {}'
mcp_post "$SID" '{"jsonrpc":"2.0","id":6,"method":"resources/list"}'
jq_out '.id == 6 and .error.code == -32601'

t "/mcp: the session is required, checked and ended by DELETE; GET is 405"
mcp_post "" '{"jsonrpc":"2.0","id":7,"method":"tools/list"}'
[ "$code" = 400 ] || fail "no session: HTTP $code"
mcp_post "0123456789abcdef0123456789abcdef" '{"jsonrpc":"2.0","id":8,"method":"tools/list"}'
[ "$code" = 404 ] || fail "unknown session: HTTP $code"
mcp_post "$SID" '{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}'
[ "$code" = 400 ] || fail "second initialize: HTTP $code"
mcp_post "$SID" 'not json'
[ "$code" = 400 ] || fail "parse error: HTTP $code"
jq_out '.error.code == -32700'
agent_curl -X DELETE -H "Mcp-Session-Id: $SID" "$URL/mcp"
[ "$code" = 200 ] || fail "DELETE: HTTP $code"
mcp_post "$SID" '{"jsonrpc":"2.0","id":10,"method":"tools/list"}'
[ "$code" = 404 ] || fail "after DELETE: HTTP $code"
agent_curl "$URL/mcp"
[ "$code" = 405 ] || fail "GET: HTTP $code"

t "the engine takes extensions as strings only, and never shows the servers it passes on"
code=$(curl -s -o "$TMP/out" -w '%{http_code}' --unix-socket "$ALLOX_HOME/run/engine.sock" \
	-H 'Content-Type: application/json' -d '{"image":{"uri":"host"},"entrypoint":["true"],"timeout":60,
	"resourceLimits":{},"extensions":{"allox.mcp.servers":{"x":1}}}' http://x/v1/sandboxes)
[ "$code" = 400 ] || fail "HTTP $code"
jq_out '.message | test("extensions must be an object of strings")'
curl -s -o "$TMP/out" --unix-socket "$ALLOX_HOME/run/engine.sock" "http://x/v1/sandboxes/$ID"
jq_out '.id and (tostring | test("ALLOX_AGENT_MCP_SERVERS|mcp_fixture") | not)'

t "/mcp with the official TypeScript SDK client: connect, list, call, end the session"
run node "$SRC/cli/mcp_sdk_client.mjs" "$(cd "$NM" && pwd)" "$URL" "$TOKEN"
expect_rc 0
jq_out '(.session | length) == 32 and .server.name == "allox-agent" and (.tools | index("everything_echo"))
	and .echo == [{"type": "text", "text": "Echo: from the SDK"}] and .bash == [{"type": "text", "text": "sdk bash\n"}]
	and .unknown == -32602'

t "the client's Streamable HTTP code against server-everything's own endpoint (SSE replies, its session ids)"
PROBE=$(dirname "$ALLOX_CLI")/tests/helpers/mcp_probe
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
PORT=$port node "$NM/@modelcontextprotocol/server-everything/dist/index.js" streamableHttp >"$TMP/ev-http.log" 2>&1 &
ev_pid=$!
trap 'kill "$ev_pid" 2>/dev/null; stop_engine; rm -rf "$TMP"' EXIT
listening() {
	curl -s -o /dev/null "http://127.0.0.1:$port/mcp"
}
wait_until 60 listening || fail "server-everything does not listen on $port"
run "$PROBE" "http://127.0.0.1:$port" /mcp get-sum '{"a":20,"b":22}'
expect_rc 0
jq_out '(.session | length) > 0 and .version == "2025-11-25" and .server.name == "mcp-servers/everything"
	and (.tools | index("echo")) and .result.content == [{"type": "text", "text": "The sum of 20 and 22 is 42."}]'
kill "$ev_pid" 2>/dev/null

t "a broken [mcp.servers] table stops sandbox create, naming the key"
cp "$ALLOX_HOME/config.toml" "$TMP/good.toml"
printf '\n[mcp.servers.bad]\ncommand = "node"\n' >> "$ALLOX_HOME/config.toml"
run allox sandbox create
expect_rc 1
expect_err_has "mcp.servers.bad: command must be a non-empty array of strings"
cp "$TMP/good.toml" "$ALLOX_HOME/config.toml"

t "without the REST bridge the client falls back to /mcp"
# This sandbox's agent also declares sampling, elicitation and roots to its
# servers (a test hook), so that server-everything offers the tools that
# send those requests; they are refused all the same.
allox sandbox create -e ALLOX_AGENT_MCP_NO_BRIDGE=1 \
	-e 'ALLOX_AGENT_MCP_TEST_CLIENT_CAPABILITIES={"sampling":{},"elicitation":{},"roots":{}}' \
	-o json > "$TMP/created2" || fail "cannot create"
ID2=$(jq -r .id "$TMP/created2")
allox file upload "$ID2" "$TMP/mcp.tgz" /home/gem/mcp.tgz >/dev/null &&
	allox file upload "$ID2" "$SRC/cli/mcp_fixture.py" /home/gem/mcp_fixture.py >/dev/null &&
	allox run "$ID2" sh -c 'mkdir -p /home/gem/mcp /home/gem/work && tar xzf /home/gem/mcp.tgz -C /home/gem/mcp' ||
	fail "cannot copy the servers into the sandbox"
run allox -v aio mcp servers -o json
expect_rc 0
jq_out '.servers == ["sandbox", "browser", "everything", "files", "fixture"] and .via == "/mcp"'
expect_err_has "/v1/mcp/servers"
expect_err_has "-> 404"
expect_err_has "POST http://127.0.0.1"
run allox aio mcp tools fixture -o json
jq_out '[.tools[].name] == ["ask", "noisy", "crash"]'
run allox aio mcp call fixture noisy
expect_rc 0
expect_out "quiet now"
run allox aio mcp call sandbox sandbox_execute_bash --arg cmd='echo through the hub'
expect_rc 0
expect_out "through the hub"
run allox aio mcp call fixture nosuch
expect_rc 1
expect_err "Error: MCP tool 'nosuch' not found on server 'fixture'. Tools: ask, noisy, crash"
run allox aio mcp call nosuch x
expect_rc 1
expect_err "Error: MCP server 'nosuch' not found. Servers: sandbox, browser, everything, files, fixture"

t "server-everything's sampling and elicitation requests get JSON-RPC errors, never a hang"
run allox aio mcp tools everything -o json
jq_out '[.tools[].name] | index("trigger-sampling-request") and index("trigger-elicitation-request")'
run timeout 120 "$ALLOX_CLI" aio mcp call everything trigger-sampling-request --arg prompt=hello
expect_rc 1
expect_out "MCP error -32601: Method not found"
expect_err "Error: MCP tool 'everything/trigger-sampling-request' failed"
run timeout 120 "$ALLOX_CLI" aio mcp call everything trigger-elicitation-request
expect_rc 1
expect_out "MCP error -32601: Method not found"

t "no cgroup is left of a sandbox of this test: ended ones, then all once the engine stops"
expect_clean_stop

done_testing
