#!/usr/bin/env python3
"""A hostile lifecycle + execd server for tests/cli/hostile.sh: every sandbox's
endpoint is this server, whose directory listings name entries outside the
listed directory. Usage: hostile_server.py PORTFILE (writes its port there)."""
import json
import sys
import urllib.parse
from http.server import BaseHTTPRequestHandler, HTTPServer

# Root -> the entries its listing returns (execd FileInfo, absolute paths).
LISTINGS = {
    "/dotdot": [{"path": "/dotdot/ok", "type": "file", "size": 2},
                {"path": "/dotdot/../../escaped", "type": "file", "size": 3}],
    "/abs": [{"path": "/etc/passwd", "type": "file", "size": 3}],
    "/sibling": [{"path": "/siblingx/f", "type": "file", "size": 3}],
    "/dirup": [{"path": "/dirup/..", "type": "directory"}],
    "/link": [{"path": "/link/l", "type": "symlink", "size": 3}],
    "/empty": [{"path": "", "type": "file", "size": 3}],
    "/nul": [{"path": "/nul/a\u0000/../../x", "type": "file", "size": 3}],
}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send_json(self, value, status=200):
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        query = urllib.parse.parse_qs(url.query)
        path = query.get("path", [""])[0]
        if url.path.startswith("/v1/sandboxes/") and "/endpoints/" in url.path:
            self.send_json({"endpoint": "127.0.0.1:%d" % self.server.server_port, "headers": {}})
        elif url.path.startswith("/v1/sandboxes/"):
            self.send_json({"id": url.path.split("/")[3], "status": {"state": "Running"}})
        elif url.path == "/files/info":
            self.send_json({path: {"path": path, "type": "directory", "size": 0, "mode": 755}})
        elif url.path == "/directories/list":
            self.send_json(LISTINGS.get(path, []))
        elif url.path == "/files/download":
            body = b"pwn"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        else:
            self.send_json({"code": "NOT_FOUND", "message": "no route"}, 404)


def main():
    server = HTTPServer(("127.0.0.1", 0), Handler)
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write(str(server.server_port))
    import os
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    server.serve_forever()


if __name__ == "__main__":
    main()
