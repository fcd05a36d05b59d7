"""``Transport``: POST over keep-alive connections, on plain sockets.

A POST through urllib3's pool manager cost about 400 us of CPU on our
2-core machine, one through ``http.client`` about half that, and half of
what was left went to parsing response headers with the ``email``
package; at one POST per notification this was the largest single cost
of kube-notifier. So the request is written and the response read here
(``http1``), and what urllib3 added that a sink needs lives here too: a
bounded set of idle connections, separate connect and read timeouts, TLS
with the configured CA bundle or none, and not reusing a connection the
server has already closed.

Errors are not classified here: ``post`` raises what ``socket``, ``ssl``
and ``http1`` raise, and closes the connection it was using. Thread-safe:
each call takes a connection of its own.
"""

from __future__ import annotations

import base64
import select
import socket
import ssl
import threading
from dataclasses import dataclass
from typing import BinaryIO
from urllib.parse import unquote, urlsplit

from notifier.sinks.webhook.http1 import read_response, request_head


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
    authorization: str | None  # from user:password in the URL, as curl sends it


def _endpoint(url: str) -> _Endpoint:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadUrlError("the URL must be http:// or https:// with a host")
    try:
        port = parts.port
    except ValueError:
        raise BadUrlError("the URL has an invalid port") from None
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    authorization = None
    if parts.username is not None:
        pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
        authorization = "Basic " + base64.b64encode(pair).decode()
    return _Endpoint(parts.scheme, parts.hostname, port, target, authorization)


def tls_context(*, verify: bool, ca_file: str | None) -> ssl.SSLContext:
    if not verify:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return context
    return ssl.create_default_context(cafile=ca_file)


@dataclass(eq=False, slots=True)
class _Connection:
    sock: socket.socket
    reader: BinaryIO

    def close(self) -> None:
        self.reader.close()
        self.sock.close()


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
        self._idle: list[_Connection] = []
        self._closed = False  # a connection given back after close is closed, not kept
        self._lock = threading.Lock()
        endpoint = self._endpoint
        default_port = 443 if endpoint.scheme == "https" else 80
        self._port = endpoint.port or default_port
        host = f"[{endpoint.host}]" if ":" in endpoint.host else endpoint.host
        self._host_header = host if endpoint.port is None else f"{host}:{endpoint.port}"

    def post(self, body: bytes, headers: dict[str, str]) -> Reply:
        authorization = self._endpoint.authorization
        if authorization and not any(name.lower() == "authorization" for name in headers):
            headers = {"Authorization": authorization, **headers}
        head = request_head(self._endpoint.target, self._host_header, len(body), headers)
        conn = self._take()
        try:
            conn.sock.sendall(head + body)
            response = read_response(conn.reader)
        except BaseException:
            conn.close()
            raise
        if response.reusable:
            self._give_back(conn)
        else:
            conn.close()
        return Reply(response.status, response.retry_after)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    def _take(self) -> _Connection:
        while True:
            with self._lock:
                conn = self._idle.pop() if self._idle else None
            if conn is None:
                return self._connect()
            if _still_open(conn.sock):
                return conn
            conn.close()

    def _give_back(self, conn: _Connection) -> None:
        with self._lock:
            if not self._closed and len(self._idle) < self._max_idle:
                self._idle.append(conn)
                return
        conn.close()

    def _connect(self) -> _Connection:
        endpoint = self._endpoint
        try:
            sock = socket.create_connection((endpoint.host, self._port), self._connect_timeout)
        except TimeoutError as err:
            raise ConnectTimeoutError(str(err)) from err
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if endpoint.scheme == "https":
                context = self._tls or tls_context(verify=True, ca_file=None)
                sock = context.wrap_socket(sock, server_hostname=endpoint.host)
            sock.settimeout(self._read_timeout)  # connected: from now on, the read timeout
        except TimeoutError as err:
            sock.close()
            raise ConnectTimeoutError(str(err)) from err
        except BaseException:
            sock.close()
            raise
        return _Connection(sock, sock.makefile("rb"))


def _still_open(sock: socket.socket) -> bool:
    """An idle keep-alive connection is usable if nothing can be read from it:
    readable means the server closed it (or sent bytes nobody asked for)."""
    if isinstance(sock, ssl.SSLSocket) and sock.pending():
        return False
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return False
    return not readable
