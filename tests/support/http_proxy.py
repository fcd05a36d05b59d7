"""A loopback HTTP proxy that records what went through it: CONNECT tunnels and plain forwards.

``CONNECT host:port`` opens a tunnel (how clients reach https:// servers
through a proxy); a request with an absolute URI (``GET http://host/path``)
is forwarded as it is and its answer relayed. ``tunnels`` and
``forwarded`` list the targets, so a test can tell the proxy was used, and
for what.
"""

from __future__ import annotations

import contextlib
import http.client
import select
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

HOP_BY_HOP = {"connection", "proxy-connection", "keep-alive", "proxy-authorization", "te"}
TIMEOUT = 120.0


class HttpProxy:
    def __init__(self) -> None:
        self.tunnels: list[str] = []  # "host:port" of each CONNECT
        self.forwarded: list[str] = []  # "METHOD url" of each plain request
        self._seen: list[str] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self.port: int = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()

    @property
    def seen(self) -> list[str]:
        """Every request line handled, in order: ``CONNECT host:port`` or ``METHOD url``."""
        return list(self._seen)

    def __enter__(self) -> HttpProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def _handler_for(proxy: HttpProxy) -> type[BaseHTTPRequestHandler]:
    class Handler(_ProxyHandler):
        recorder = proxy

    return Handler


class _ProxyHandler(BaseHTTPRequestHandler):
    recorder: HttpProxy
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        return None  # quiet: the tests read ``tunnels`` and ``forwarded``

    def do_CONNECT(self) -> None:
        host, _, port = self.path.rpartition(":")
        try:
            upstream = socket.create_connection((host, int(port)), timeout=TIMEOUT)
        except (OSError, ValueError):
            self.send_error(502, "cannot reach the target")
            return
        self.recorder.tunnels.append(self.path)
        self.recorder._seen.append(f"CONNECT {self.path}")
        self.send_response(200, "Connection Established")
        self.end_headers()
        with upstream:
            _pump(self.connection, upstream)
        self.close_connection = True

    def _forward(self) -> None:
        target = urlsplit(self.path)
        if target.scheme != "http" or not target.hostname:
            self.send_error(400, "a proxy forwards only absolute http:// URLs")
            return
        self.recorder.forwarded.append(f"{self.command} {self.path}")
        self.recorder._seen.append(f"{self.command} {self.path}")
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        upstream = http.client.HTTPConnection(target.hostname, target.port or 80, timeout=TIMEOUT)
        try:
            path = target.path + (f"?{target.query}" if target.query else "")
            upstream.request(self.command, path or "/", body=body, headers=headers)
            answer = upstream.getresponse()
            data = answer.read()
        except OSError:
            self.send_error(502, "the target did not answer")
            return
        finally:
            upstream.close()
        self._relay(answer, data)

    def _relay(self, answer: http.client.HTTPResponse, data: bytes) -> None:
        self.send_response(answer.status, answer.reason)
        for name, value in answer.getheaders():
            if name.lower() not in HOP_BY_HOP | {"content-length", "transfer-encoding"}:
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._forward()

    def do_POST(self) -> None:
        self._forward()

    def do_PUT(self) -> None:
        self._forward()

    def do_PATCH(self) -> None:
        self._forward()

    def do_DELETE(self) -> None:
        self._forward()


def _pump(a: socket.socket, b: socket.socket) -> None:
    """Copy bytes both ways until either side closes."""
    peers = {a: b, b: a}
    with contextlib.suppress(OSError):
        while True:
            readable, _, _ = select.select([a, b], [], [], TIMEOUT)
            if not readable:
                return
            for sock in readable:
                data = sock.recv(65536)
                if not data:
                    return
                peers[sock].sendall(data)
