"""A small HTTP proxy on 127.0.0.1 that records what went through it.

Plain HTTP requests with an absolute URI are forwarded (``POST http://…``);
``CONNECT host:port`` opens a tunnel (for https targets). ``seen`` lists each
request line it handled. Only loopback targets are forwarded; stop it with
``close``.
"""

from __future__ import annotations

import http.client
import select
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

_LOOPBACK = ("127.0.0.1", "localhost", "::1")


class HttpProxy:
    def __init__(self) -> None:
        self.seen: list[str] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def _handler(owner: HttpProxy) -> Any:
    class Handler(BaseHTTPRequestHandler):
        def do_CONNECT(self) -> None:
            owner.seen.append(f"CONNECT {self.path}")
            host, _, port = self.path.rpartition(":")
            if host not in _LOOPBACK:
                self.send_error(403)
                return
            upstream = socket.create_connection((host, int(port)), timeout=5)
            self.send_response(200, "Connection Established")
            self.end_headers()
            _relay(self.connection, upstream)

        def do_POST(self) -> None:
            owner.seen.append(f"POST {self.path}")
            target = urlsplit(self.path)
            if target.hostname not in _LOOPBACK:
                self.send_error(403)
                return
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            upstream = http.client.HTTPConnection(target.hostname, target.port, timeout=5)
            path = target.path + (f"?{target.query}" if target.query else "")
            upstream.request("POST", path, body, dict(self.headers.items()))
            reply = upstream.getresponse()
            data = reply.read()
            self.send_response(reply.status)
            for name, value in reply.getheaders():
                if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            upstream.close()

        def log_message(self, format: str, *args: Any) -> None:
            return None

    return Handler


def _relay(client: socket.socket, upstream: socket.socket) -> None:
    sockets = [client, upstream]
    try:
        for _ in range(10_000):  # bounded: a test's exchange is a few reads
            readable, _, _ = select.select(sockets, [], [], 5)
            if not readable:
                return
            for sock in readable:
                data = sock.recv(65536)
                if not data:
                    return
                (upstream if sock is client else client).sendall(data)
    finally:
        upstream.close()
