"""The webhook transport against a raw socket server that shows its connections."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from notifier.sinks.transport import BadUrlError, InvalidHeaderError, Transport
from notifier.sinks.webhook.failures import failure_for_exception

OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
OK_THEN_CLOSE = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
THROTTLED = b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 7\r\nContent-Length: 0\r\n\r\n"


class RawServer:
    """Accepts connections on 127.0.0.1 and answers every request with ``reply``;
    ``close_after_reply`` drops the connection after answering (without saying so)."""

    def __init__(self, reply: bytes = OK, *, close_after_reply: bool = False) -> None:
        self.reply = reply
        self.close_after_reply = close_after_reply
        self.connections = 0
        self.requests: list[bytes] = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}/hook?token=x"

    def __enter__(self) -> RawServer:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(5)
        self._listener.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            self.connections += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            buffered = b""
            while not self._stop.is_set():
                while b"\r\n\r\n" not in buffered:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    buffered += chunk
                head, _, rest = buffered.partition(b"\r\n\r\n")
                length = _content_length(head)
                while len(rest) < length:
                    rest += conn.recv(65536)
                self.requests.append(head + b"\r\n\r\n" + rest[:length])
                buffered = rest[length:]
                conn.sendall(self.reply)
                if self.close_after_reply:
                    return


def _content_length(head: bytes) -> int:
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 0


def transport(url: str, **options: float) -> Transport:
    return Transport(
        url,
        connect_timeout=options.get("connect_timeout", 2.0),
        read_timeout=options.get("read_timeout", 2.0),
    )


@pytest.fixture
def server() -> Iterator[RawServer]:
    with RawServer() as running:
        yield running


def test_posts_the_body_to_the_path_and_query(server: RawServer) -> None:
    reply = transport(server.url).post(b'{"a":1}', {"Content-Type": "application/json"})

    assert (reply.status, reply.retry_after) == (200, None)
    [request] = server.requests
    assert request.startswith(b"POST /hook?token=x HTTP/1.1\r\n")
    assert b"Content-Type: application/json" in request
    assert request.endswith(b'\r\n\r\n{"a":1}')


def test_user_and_password_in_the_url_are_sent_as_basic_auth(server: RawServer) -> None:
    url = server.url.replace("http://", "http://hook:p%40ss@")
    transport(url).post(b"{}", {})
    transport(url).post(b"{}", {"authorization": "Bearer mine"})  # a header set wins

    first, second = server.requests
    assert b"Authorization: Basic aG9vazpwQHNz\r\n" in first  # hook:p@ss
    assert b"Basic" not in second and b"authorization: Bearer mine" in second
    assert b"p%40ss" not in first + second  # never on the request line or in Host


def test_keep_alive_connections_are_reused(server: RawServer) -> None:
    posting = transport(server.url)
    for _ in range(5):
        posting.post(b"{}", {})

    assert len(server.requests) == 5
    assert server.connections == 1


def test_a_connection_the_server_dropped_is_not_reused() -> None:
    with RawServer(close_after_reply=True) as server:
        posting = transport(server.url)
        for _ in range(3):
            posting.post(b"{}", {})
            time.sleep(0.05)  # the server's close reaches us before the next post

        assert len(server.requests) == 3
        assert server.connections == 3


def test_connection_close_is_honoured() -> None:
    with RawServer(OK_THEN_CLOSE) as server:
        posting = transport(server.url)
        posting.post(b"{}", {})
        posting.post(b"{}", {})

        assert server.connections == 2


def test_retry_after_is_read() -> None:
    with RawServer(THROTTLED) as server:
        reply = transport(server.url).post(b"{}", {})

    assert (reply.status, reply.retry_after) == (429, "7")


def test_a_tls_handshake_that_never_ends_is_a_timeout(server: RawServer) -> None:
    silent = server.url.replace("http://", "https://")  # a plain server never answers the hello
    started = time.monotonic()

    with pytest.raises(Exception) as raised:
        transport(silent, connect_timeout=0.3).post(b"{}", {})

    assert time.monotonic() - started < 2.0
    error = failure_for_exception(raised.value, "https://127.0.0.1/…")
    assert (error.reason, error.retryable) in (("connect_timeout", True), ("timeout", True))


@pytest.mark.parametrize("url", ["ftp://example.com/x", "http:///no-host", "http://h:99999/"])
def test_urls_it_cannot_post_to_are_refused_at_once(url: str) -> None:
    with pytest.raises(BadUrlError):
        transport(url)


@pytest.mark.parametrize("bad", ["a\r\nX-Injected: 1", "nul\x00", "bell\x07", "del\x7f", "\n"])
def test_a_header_with_a_control_character_is_refused_unsent(server: RawServer, bad: str) -> None:
    for headers in ({"X-Team": bad}, {f"X-{bad}": "ops"}):
        with pytest.raises(InvalidHeaderError):
            transport(server.url).post(b"{}", headers)
    assert server.requests == []


def test_a_tab_in_a_header_value_is_sent(server: RawServer) -> None:
    transport(server.url).post(b"{}", {"X-Team": "ops\tblue"})
    assert b"X-Team: ops\tblue\r\n" in server.requests[0]


def _answer(body: bytes) -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)


@pytest.mark.parametrize(("answer", "read", "connections"), [
    (b"12345678", b"12345678", 1),  # within the bound: read whole, the connection kept
    (b"123456789abc", b"12345678", 2),  # past it: cut at the bound, the rest never read
])  # fmt: skip
def test_the_answer_is_read_up_to_the_bound(answer: bytes, read: bytes, connections: int) -> None:
    with RawServer(_answer(answer)) as server:
        posting = Transport(server.url, connect_timeout=2.0, read_timeout=2.0, max_body=8)
        replies = [posting.post(b"{}", {}) for _ in range(2)]

    assert [reply.body for reply in replies] == [read, read]
    assert server.connections == connections


def test_another_url_on_the_same_origin_gets_its_own_path_and_query(server: RawServer) -> None:
    posting = transport(server.url)
    posting.post(b"{}", {}, url=server.url.replace("/hook?token=x", "/resolve/ab%2Fc?x=1"))
    posting.post(b"{}", {})

    first, second = server.requests
    assert first.startswith(b"POST /resolve/ab%2Fc?x=1 HTTP/1.1\r\n")
    assert second.startswith(b"POST /hook?token=x HTTP/1.1\r\n")


def test_only_the_headers_given_are_sent_beside_host_and_length(server: RawServer) -> None:
    """No ``Expect: 100-continue`` (a wait for an answer many receivers never give), no
    ``Accept`` or form ``Content-Type`` of libcurl's own; an empty value is sent empty."""
    transport(server.url).post(b"{}", {"X-Empty": "", "User-Agent": "kn"})

    [request] = server.requests
    names = [line.split(b":")[0].lower() for line in request.split(b"\r\n")[1:] if b":" in line]
    assert sorted(names) == [b"content-length", b"host", b"user-agent", b"x-empty"]
    assert b"X-Empty: \r\n" in request or b"X-Empty:\r\n" in request
