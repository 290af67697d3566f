#!/usr/bin/env python3
"""A small stdio MCP server for tests/cli/mcp.sh: what the real servers do
not do on demand. tools/list comes in two pages; `ask` sends the client the
requests a tool-calling client must refuse (sampling, elicitation, roots)
and a ping, and reports how each was answered; `noisy` interleaves
notifications, a non-JSON line and a reply to an id never sent before its
result; `crash` exits without answering."""
import json
import sys

sys.stderr.write("fixture started\n")
sys.stderr.flush()


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def read():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return json.loads(line)


def tool(name, description):
    return {"name": name, "description": description,
            "inputSchema": {"type": "object", "properties": {}}}


PAGES = {None: ([tool("ask", "asks the client for sampling, elicitation, roots and a ping")], "page-2"),
         "page-2": ([tool("noisy", "notifications and junk before its result"),
                     tool("crash", "exits without answering")], None)}


def ask_client(rid):
    """Send the client four requests; describe each answer."""
    asks = {"q-sampling": ("sampling/createMessage", {"messages": [], "maxTokens": 10}),
            "q-elicit": ("elicitation/create", {"message": "?", "requestedSchema": {"type": "object"}}),
            "q-roots": ("roots/list", {}),
            "q-ping": ("ping", None)}
    for qid, (method, params) in asks.items():
        msg = {"jsonrpc": "2.0", "id": qid, "method": method}
        if params is not None:
            msg["params"] = params
        send(msg)
    answers = {}
    while len(answers) < len(asks):
        msg = read()
        if msg.get("id") in asks and "method" not in msg:
            method = asks[msg["id"]][0]
            if "error" in msg:
                answers[method] = "error %d" % msg["error"]["code"]
            else:
                answers[method] = "result %s" % json.dumps(msg["result"])
    text = "; ".join("%s: %s" % (m, answers[m]) for m in sorted(answers))
    send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": text}]}})


while True:
    msg = read()
    method, rid = msg.get("method"), msg.get("id")
    if method is None or rid is None:
        continue
    params = msg.get("params") or {}
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}}, "serverInfo": {"name": "fixture", "version": "1"}}})
    elif method == "tools/list":
        tools, cursor = PAGES.get(params.get("cursor"), ([], None))
        result = {"tools": tools}
        if cursor:
            result["nextCursor"] = cursor
        send({"jsonrpc": "2.0", "id": rid, "result": result})
    elif method == "tools/call" and params.get("name") == "ask":
        ask_client(rid)
    elif method == "tools/call" and params.get("name") == "noisy":
        send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hi"}})
        sys.stdout.write("this is not JSON\n")
        send({"jsonrpc": "2.0", "id": 987654, "result": {"content": [{"type": "text", "text": "stale"}]}})
        send({"jsonrpc": "2.0", "id": str(rid), "result": {"content": [{"type": "text", "text": "string id"}]}})
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "quiet now"}]}})
    elif method == "tools/call" and params.get("name") == "crash":
        sys.stderr.write("crashing on purpose\n")
        sys.exit(3)
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})
