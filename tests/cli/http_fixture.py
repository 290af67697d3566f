"""A scripted HTTP/1.1 server for tests/cli/http.sh: it answers as real
servers may (chunked, close-delimited, odd header case, closing a
keep-alive connection while idle) and records what it saw.

usage: http_fixture.py PORTFILE LOGFILE
Writes its port to PORTFILE, then one line per connection ("connect") and
per request ("METHOD PATH") to LOGFILE."""
import json
import socket
import sys

SANDBOX = {
    "id": "11111111-2222-4333-8444-555555555555",
    "image": {"uri": "host"},
    "entrypoint": ["tail", "-f", "/dev/null"],
    "metadata": {},
    "status": {"state": "Paused", "reason": "SANDBOX_PAUSED"},
    "createdAt": "2026-12-03T10:00:00Z",
    "expiresAt": None,
}


def log(path, line):
    with open(path, "a") as f:
        f.write(line + "\n")


def read_request(conn, buf):
    while b"\r\n\r\n" not in buf:
        data = conn.recv(65536)
        if not data:
            return None, buf
        buf += data
    head, _, rest = buf.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    length = 0
    for h in lines[1:]:
        k, _, v = h.partition(":")
        if k.strip().lower() == "content-length":
            length = int(v.strip())
    while len(rest) < length:
        data = conn.recv(65536)
        if not data:
            break
        rest += data
    return lines[0], rest[length:]


def chunked(body):
    out = b""
    for i in range(0, len(body), 7):
        part = body[i:i + 7]
        out += b"%x\r\n" % len(part) + part + b"\r\n"
    return out + b"0\r\n\r\n"


def main():
    portfile, logfile = sys.argv[1], sys.argv[2]
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    with open(portfile + ".tmp", "w") as f:
        f.write(str(srv.getsockname()[1]))
    import os
    os.rename(portfile + ".tmp", portfile)
    while True:
        conn, _ = srv.accept()
        log(logfile, "connect")
        buf = b""
        while True:
            line, buf = read_request(conn, buf)
            if line is None:
                break
            method, path = line.split(" ")[:2]
            log(logfile, method + " " + path)
            if method == "POST" and path.endswith("/pause"):
                # A keep-alive answer, then the server closes the idle connection.
                conn.sendall(b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
                break
            if method == "GET" and path.startswith("/v1/sandboxes/"):
                body = json.dumps(SANDBOX).encode()
                conn.sendall(b"HTTP/1.1 200 OK\r\ncOnTeNt-TyPe: application/json\r\n"
                             b"Transfer-Encoding: chunked\r\n\r\n" + chunked(body))
                continue
            if method == "GET" and path.startswith("/v1/sandboxes"):
                # No length: the body ends when the connection does.
                body = json.dumps({"items": [SANDBOX], "pagination": {
                    "page": 1, "pageSize": 20, "totalItems": 1, "totalPages": 1, "hasNextPage": False}})
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Connection: close\r\n\r\n" + body.encode())
                break
            if method == "DELETE":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel")
                break  # closes with 2 bytes of the body missing
            conn.sendall(b"HTTQ/9 what\r\n\r\n")
            break
        conn.close()


main()
