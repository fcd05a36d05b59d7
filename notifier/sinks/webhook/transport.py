"""``Transport``: POST over keep-alive connections, with nothing between us and ``http.client``.

A POST through urllib3's pool manager cost about 400 us of CPU on our
2-core machine, one through ``http.client`` about half that; at one POST
per notification the difference was a sixth of kube-notifier's CPU. What
urllib3 added that a sink needs is small and lives here: a bounded set of
idle connections, separate connect and read timeouts, TLS with the
configured CA bundle or none, and not reusing a connection the server has
already closed.

Errors are not classified here: ``post`` raises what ``http.client``,
``socket`` and ``ssl`` raise, and closes the connection it was using.
Thread-safe: each call takes a connection of its own.
"""

from __future__ import annotations

import http.client
import select
import socket
import ssl
import threading
from dataclasses import dataclass
from urllib.parse import urlsplit


class BadUrlError(ValueError):
    """A URL this transport cannot POST to (not http/https, no host)."""


class ConnectTimeoutError(TimeoutError):
    """No connection (TCP and TLS) within the connect timeout."""


@dataclass(frozen=True, slots=True)
class Reply:
    status: int
    retry_after: str | None


@dataclass(frozen=True, slots=True)
class _Endpoint:
    scheme: str
    host: str
    port: int | None
    target: str  # path and query, as sent on the request line


def _endpoint(url: str) -> _Endpoint:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadUrlError("the URL must be http:// or https:// with a host")
    try:
        port = parts.port
    except ValueError:
        raise BadUrlError("the URL has an invalid port") from None
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return _Endpoint(parts.scheme, parts.hostname, port, target)


def tls_context(*, verify: bool, ca_file: str | None) -> ssl.SSLContext:
    if not verify:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return context
    return ssl.create_default_context(cafile=ca_file)


class Transport:
    def __init__(
        self,
        url: str,
        *,
        connect_timeout: float,
        read_timeout: float,
        tls: ssl.SSLContext | None = None,
        max_idle: int = 4,
    ) -> None:
        self._endpoint = _endpoint(url)
        self._connect_timeout = connect_timeout
        self._read_timeout = read_timeout
        self._tls = tls
        self._max_idle = max_idle
        self._idle: list[http.client.HTTPConnection] = []
        self._lock = threading.Lock()

    def post(self, body: bytes, headers: dict[str, str]) -> Reply:
        conn = self._take()
        try:
            conn.request("POST", self._endpoint.target, body=body, headers=headers)
            response = conn.getresponse()
            response.read()  # the body is not used, but must be read to reuse the connection
        except BaseException:
            conn.close()
            raise
        reply = Reply(response.status, response.getheader("Retry-After"))
        if response.will_close:
            conn.close()
        else:
            self._give_back(conn)
        return reply

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    def _take(self) -> http.client.HTTPConnection:
        while True:
            with self._lock:
                conn = self._idle.pop() if self._idle else None
            if conn is None:
                return self._connect()
            if _still_open(conn):
                return conn
            conn.close()

    def _give_back(self, conn: http.client.HTTPConnection) -> None:
        with self._lock:
            if len(self._idle) < self._max_idle:
                self._idle.append(conn)
                return
        conn.close()

    def _connect(self) -> http.client.HTTPConnection:
        endpoint = self._endpoint
        conn: http.client.HTTPConnection
        if endpoint.scheme == "https":
            context = self._tls or tls_context(verify=True, ca_file=None)
            conn = http.client.HTTPSConnection(
                endpoint.host, endpoint.port, timeout=self._connect_timeout, context=context
            )
        else:
            conn = http.client.HTTPConnection(
                endpoint.host, endpoint.port, timeout=self._connect_timeout
            )
        try:
            conn.connect()
        except TimeoutError as err:
            conn.close()
            raise ConnectTimeoutError(str(err)) from err
        except BaseException:
            conn.close()
            raise
        assert conn.sock is not None
        conn.sock.settimeout(self._read_timeout)  # connected: from now on, the read timeout
        conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return conn


def _still_open(conn: http.client.HTTPConnection) -> bool:
    """An idle keep-alive connection is usable if nothing can be read from it:
    readable means the server closed it (or sent bytes nobody asked for)."""
    sock = conn.sock
    if sock is None:
        return False
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return False
    return not readable
