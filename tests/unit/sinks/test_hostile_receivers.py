"""Receivers built to hold a send forever or fill memory: each send ends by its deadline."""

from __future__ import annotations

import socket
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator

import pytest

from notifier.sinks.base import SendError
from notifier.sinks.transport import Transport
from notifier.sinks.webhook.failures import failure_for_exception, failure_for_status

Behaviour = Callable[[socket.socket], None]
DEADLINE = 2.0
STEPS = 400  # every hostile loop stops by itself


def _trickle(conn: socket.socket) -> None:
    for byte in (b"HTTP/1.1 200 OK\r\nX-Slow: " + b"y" * STEPS)[:STEPS]:
        conn.sendall(bytes([byte]))
        time.sleep(0.05)


def _trickled_body(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
    for _ in range(STEPS):  # a byte every 50 ms: each is progress, so only the deadline ends it
        conn.sendall(b"x")
        time.sleep(0.05)


def _continue_forever(conn: socket.socket) -> None:
    for _ in range(STEPS):
        conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
        time.sleep(0.02)


def _negative_chunk(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-10\r\n")
    for _ in range(STEPS):
        conn.sendall(b"x" * 65536)


def _huge_body(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000000000\r\n\r\n")
    for _ in range(STEPS):
        conn.sendall(b"x" * 65536)


def _status_2000(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 2000 OK\r\nContent-Length: 0\r\n\r\n")


def _silent(conn: socket.socket) -> None:
    conn.settimeout(10)
    while conn.recv(65536):  # the body may come after the headers: read all, answer nothing
        pass  # until the client gives up


class HostileServer:
    def __init__(self, behaviour: Behaviour) -> None:
        self._behaviour = behaviour
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.2)
        self._stop = threading.Event()
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}/hook"
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self._stop.set()
        self._listener.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except OSError:
                continue
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            request = b""
            while b"\r\n\r\n" not in request:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                request += chunk
            try:
                self._behaviour(conn)
            except OSError:
                return  # the client gave up: what we want


@pytest.fixture
def hostile(request: pytest.FixtureRequest) -> Iterator[HostileServer]:
    server = HostileServer(request.param)
    yield server
    server.close()


def _send(url: str) -> tuple[float, int, SendError | None]:
    """Seconds taken, peak bytes allocated, and the failure (None: a 2xx arrived)."""
    posting = Transport(url, connect_timeout=1.0, read_timeout=1.0, deadline=DEADLINE)
    tracemalloc.start()
    started = time.monotonic()
    try:
        reply = posting.post(b"{}", {"Content-Type": "application/json"})
        failure = failure_for_status(reply.status, reply.retry_after, now=time.time())
    except Exception as err:  # classified as the sink does
        failure = failure_for_exception(err, "http://127.0.0.1/…")
    took = time.monotonic() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    posting.close()
    return took, peak, failure


@pytest.mark.parametrize(
    ("hostile", "reason"),
    [
        # A header line that never ends, interim answers: no progress to us (a whole header
        # line or a body byte is); the read timeout may end the send before its deadline.
        (_trickle, ("deadline", "timeout")),
        (_continue_forever, ("deadline", "timeout")),
        (_trickled_body, "deadline"),
        (_negative_chunk, None),
        (_huge_body, None),
        (_status_2000, "connection_error"),
        (_silent, "timeout"),
    ],
    indirect=["hostile"],
    ids=[
        "trickle",
        "endless-100-continue",
        "trickled-body",
        "negative-chunk",
        "huge-body",
        "status-2000",
        "silent",
    ],
)
def test_a_hostile_receiver_ends_the_send_by_its_deadline_in_bounded_memory(
    hostile: HostileServer, reason: str | tuple[str, ...] | None
) -> None:
    took, peak, failure = _send(hostile.url)
    assert took < DEADLINE + 1.5, f"took {took:.1f}s"
    assert peak < 8 * 1024 * 1024, f"peak {peak / 2**20:.0f} MiB"
    if reason is None:  # the status line said 200: the body is read no further than a bound
        assert failure is None or failure.retryable
    else:
        reasons = (reason,) if isinstance(reason, str) else reason
        assert failure is not None and failure.retryable and failure.reason in reasons
