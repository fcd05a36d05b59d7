"""Real HTTP servers on 127.0.0.1 for tests: they record requests and answer as told.

``LoopbackServer`` is the machinery: a threading HTTP/1.1 server (keep-alive,
optional TLS) that records every request with its arrival time
(``time.monotonic()``), asks a responder what to answer, and can *hang*
(accept a request and never answer), *go down* (refuse connections; open
ones are cut) and *come up* again on the same port.

``WebhookServer`` answers 200 unless scripted otherwise: ``answer(500, times=3)``,
``answer(400, when=lambda r: ...)``, ``answer(HANG)``.

Run ``python -m tests.support.webhook_server`` for a receiver that answers
200 without recording (used by the delivery bench); it prints its URL and
stops when its stdin closes.
"""

from __future__ import annotations

import contextlib
import json
import socket
import ssl
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self


@dataclass(frozen=True)
class ReceivedRequest:
    method: str
    path: str
    headers: Mapping[str, str]  # keys in lower case
    body: bytes
    arrived_at: float  # time.monotonic()
    status: int = 0  # what the server answered; 0 when it hung

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    hang: bool = False
    trickle: bool = False  # the body one byte every 0.2 s, until it ends or the client leaves


HANG = Reply(status=0, hang=True)

Responder = Callable[[ReceivedRequest], Reply]


class _HttpServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, port: int, owner: LoopbackServer) -> None:
        self.owner = owner
        super().__init__(("127.0.0.1", port), _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Cut connections and failed TLS handshakes are part of the tests: stay quiet."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HttpServer

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in two writes: without this, Nagle's algorithm
        # and delayed ACKs add 40 ms to every keep-alive request.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.owner._track(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.owner._untrack(self.connection)

    def do_POST(self) -> None:
        self._serve()

    def do_GET(self) -> None:
        self._serve()

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        request = ReceivedRequest(
            method=self.command,
            path=self.path,
            headers={key.lower(): value for key, value in self.headers.items()},
            body=body,
            arrived_at=time.monotonic(),
        )
        reply = self.server.owner._reply_to(request)
        if reply.hang:
            self.server.owner._hang_until_released()
            self.close_connection = True
            return
        self._write(reply)

    def _write(self, reply: Reply) -> None:
        self.send_response(reply.status)
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(reply.body)))
        self.end_headers()
        if not reply.trickle:
            self.wfile.write(reply.body)
            return
        for index in range(len(reply.body)):
            try:
                self.wfile.write(reply.body[index : index + 1])
                self.wfile.flush()
            except OSError:
                return  # the client gave up: what a trickle test waits for
            time.sleep(0.2)  # the pace of a hostile server, not a wait in a test


class LoopbackServer:
    def __init__(
        self, responder: Responder, *, tls: ssl.SSLContext | None = None, record: bool = True
    ) -> None:
        self._responder = responder
        self._tls = tls
        self._record = record
        self._requests: list[ReceivedRequest] = []
        self._connections: set[socket.socket] = set()
        self._cond = threading.Condition()
        self._released = threading.Event()
        self._server: _HttpServer | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        scheme = "https" if self._tls is not None else "http"
        return f"{scheme}://127.0.0.1:{self.port}"

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def start(self) -> Self:
        self.come_up()
        return self

    def stop(self) -> None:
        self.go_down()

    def come_up(self) -> None:
        """Listen (again, on the same port once it had one)."""
        self._released.clear()
        server = _HttpServer(self.port, self)
        if self._tls is not None:
            server.socket = self._tls.wrap_socket(
                server.socket, server_side=True, do_handshake_on_connect=False
            )
        self.port = server.server_address[1]
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()

    def go_down(self) -> None:
        """Stop listening, cut open connections, release hung requests."""
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        self._released.set()
        with self._cond:
            connections = list(self._connections)
        for connection in connections:
            _cut(connection)

    def received(self) -> list[ReceivedRequest]:
        with self._cond:
            return list(self._requests)

    def wait_for(
        self, predicate: Callable[[list[ReceivedRequest]], bool], timeout: float = 10.0
    ) -> list[ReceivedRequest]:
        """The requests so far, once ``predicate`` holds for them; AssertionError on timeout."""
        with self._cond:
            if not self._cond.wait_for(lambda: predicate(self._requests), timeout):
                raise AssertionError(f"timed out; received {len(self._requests)} requests")
            return list(self._requests)

    def wait_for_count(self, count: int, timeout: float = 10.0) -> list[ReceivedRequest]:
        return self.wait_for(lambda requests: len(requests) >= count, timeout)

    def _reply_to(self, request: ReceivedRequest) -> Reply:
        reply = self._responder(request)
        if self._record:
            with self._cond:
                self._requests.append(replace(request, status=reply.status))
                self._cond.notify_all()
        return reply

    def _hang_until_released(self) -> None:
        self._released.wait(60.0)

    def _track(self, connection: socket.socket) -> None:
        with self._cond:
            self._connections.add(connection)

    def _untrack(self, connection: socket.socket) -> None:
        with self._cond:
            self._connections.discard(connection)


def _cut(connection: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed by its handler
        connection.shutdown(socket.SHUT_RDWR)


@dataclass
class _Rule:
    reply: Reply
    times: int | None  # None: for ever
    when: Callable[[ReceivedRequest], bool] | None


class WebhookServer(LoopbackServer):
    """A webhook receiver: 200 unless told otherwise. POST to ``url``."""

    def __init__(self, *, tls: ssl.SSLContext | None = None, record: bool = True) -> None:
        super().__init__(self._respond, tls=tls, record=record)
        self._rules: deque[_Rule] = deque()
        self._rules_lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"{self.base_url}/hook"

    def answer(
        self,
        reply: Reply | int,
        *,
        times: int | None = 1,
        when: Callable[[ReceivedRequest], bool] | None = None,
    ) -> None:
        """Answer the next ``times`` matching requests (None: all of them) with ``reply``."""
        chosen = reply if isinstance(reply, Reply) else Reply(status=reply)
        with self._rules_lock:
            self._rules.append(_Rule(chosen, times, when))

    def clear_answers(self) -> None:
        """Forget scripted answers: 200 for everything from now on."""
        with self._rules_lock:
            self._rules.clear()

    def _respond(self, request: ReceivedRequest) -> Reply:
        with self._rules_lock:
            for rule in self._rules:
                if rule.when is None or rule.when(request):
                    return self._use(rule)
        return Reply(200, b"ok")

    def _use(self, rule: _Rule) -> Reply:
        if rule.times is not None:
            rule.times -= 1
            if rule.times == 0:
                self._rules.remove(rule)
        return rule.reply


def main() -> None:
    with WebhookServer(record=False) as server:
        print(server.url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
