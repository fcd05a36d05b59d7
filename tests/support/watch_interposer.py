"""A plain-HTTP stand-in in front of the real API server that answers every watch badly.

Lists and reads go through to the real kube-apiserver (with the test's admin
credentials); each watch gets what ``mode`` says instead, the way a broken
proxy or an overloaded API server has been seen to answer:

- ``empty``: ``200 OK`` with no body, at once;
- ``gone``: ``410 Gone`` (an ``Expired`` Status), at once.

Counts the watches and lists it saw. Listens on 127.0.0.1; stop it with ``close``.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

import urllib3

Mode = Literal["empty", "gone"]
_GONE = {
    "kind": "Status",
    "apiVersion": "v1",
    "status": "Failure",
    "reason": "Expired",
    "code": 410,
}


class WatchInterposer:
    def __init__(self, upstream: str, pool: urllib3.PoolManager, mode: Mode) -> None:
        self.mode = mode
        self.watches = 0
        self.lists = 0
        self._upstream = upstream
        self._pool = pool  # the test's admin client's: its TLS and client certificate
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def count(self, watch: bool) -> None:
        with self._lock:
            if watch:
                self.watches += 1
            else:
                self.lists += 1

    def forward(self, path: str) -> tuple[int, bytes, str]:
        reply = self._pool.request("GET", self._upstream + path, preload_content=True)
        return reply.status, reply.data, reply.headers.get("Content-Type", "application/json")


def _handler(owner: WatchInterposer) -> Any:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            watch = "watch=true" in self.path
            owner.count(watch)
            if not watch:
                self._answer(*owner.forward(self.path))
            elif owner.mode == "empty":
                self._answer(200, b"", "application/json")
            else:
                self._answer(
                    410, json.dumps(_GONE | {"message": "too old"}).encode(), "application/json"
                )

        def _answer(self, status: int, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            return None

    return Handler
