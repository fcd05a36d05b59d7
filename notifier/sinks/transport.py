"""``Transport``: POST over urllib3's keep-alive pools, within one deadline per send.

The one HTTP stack of the sinks: the webhook sink posts through it, and the
Slack sink's slack_sdk client sends its requests through it too
(``slack.posting``), so both honour the same proxies and deadline.

urllib3 brings what a sink needs and we no longer write ourselves: HTTP/1.1
framing, bounded idle connections, TLS with a CA bundle and an optional
client certificate (mTLS), and proxies (``notifier.sinks.proxies``).

Its timeouts bound each socket operation, not a send: a receiver that
trickles one byte a second, or answers ``100 Continue`` forever, kept a
send going for minutes. So every send has a deadline (``deadlines``): the
connection's socket is shut down when it passes, which ends whatever read
or write is waiting, and the send fails as ``DeadlineExceededError``. The
response body is read up to ``max_body`` bytes (``MAX_BODY_BYTES`` unless the
caller needs more) and the rest never is (the connection is then closed, not reused).

Errors are not classified here (``failures`` does that); ``post`` raises
what urllib3 raises, or ``DeadlineExceededError``. Thread-safe.
"""

from __future__ import annotations

import base64
import re
import socket
import ssl
import threading
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

import urllib3
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from notifier.sinks import deadlines
from notifier.sinks.proxies import proxy_auth, proxy_for

MAX_BODY_BYTES = 64 * 1024  # of a receiver's answer: we only need its status and Retry-After


_last = threading.local()  # the last answer this thread was given, for `sinks test` to show


def last_reply() -> Reply | None:
    """The last answer a send on this thread got (``kube-notifier sinks test`` prints it)."""
    reply: Reply | None = getattr(_last, "reply", None)
    return reply


def clear_last_reply() -> None:
    _last.reply = None


class BadUrlError(ValueError):
    """A URL this transport cannot POST to (not http/https, no host)."""


class InvalidHeaderError(ValueError):
    """A header name or value with a line break or a control character: never sent."""


class DeadlineExceededError(TimeoutError):
    """The send (connect, write, read) did not finish within its deadline."""


@dataclass(frozen=True, slots=True)
class Reply:
    status: int
    retry_after: str | None
    body: bytes = b""  # at most the transport's ``max_body`` bytes
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Endpoint:
    url: str  # without user:password
    host: str
    authorization: str | None  # from user:password in the URL, as curl sends it


def endpoint(url: str) -> Endpoint:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadUrlError("the URL must be http:// or https:// with a host")
    try:
        port = parts.port
    except ValueError:
        raise BadUrlError("the URL has an invalid port") from None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    netloc = host if port is None else f"{host}:{port}"
    authorization = None
    if parts.username is not None:
        pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
        authorization = "Basic " + base64.b64encode(pair).decode()
    plain = urlunsplit((parts.scheme, netloc, parts.path or "/", parts.query, ""))
    return Endpoint(plain, parts.hostname, authorization)


def tls_context(
    *,
    verify: bool,
    ca_file: str | None,
    client_cert: str | None = None,
    client_key: str | None = None,
) -> ssl.SSLContext:
    """Raises ``OSError`` / ``ssl.SSLError`` for files it cannot use (a config error)."""
    context = ssl.create_default_context(cafile=ca_file if verify else None)
    if not verify:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    if client_cert is not None:
        context.load_cert_chain(client_cert, client_key)
    return context


class _Watched:
    """Mixed into urllib3's connections: each request joins the send in progress."""

    sock: socket.socket | None  # urllib3's connection has it

    def request(self, *args: Any, **kwargs: Any) -> Any:
        send = deadlines.current()
        if send is not None:
            send.uses(self)
        return super().request(*args, **kwargs)  # type: ignore[misc]


class _WatchedHTTP(_Watched, HTTPConnection):
    pass


class _WatchedHTTPS(_Watched, HTTPSConnection):
    pass


class _WatchedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _WatchedHTTP


class _WatchedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPS


class Transport:
    def __init__(
        self,
        url: str,
        *,
        connect_timeout: float,
        read_timeout: float,
        deadline: float = 30.0,
        tls: ssl.SSLContext | None = None,
        max_idle: int = 4,
        proxy: str | None = None,
        max_body: int = MAX_BODY_BYTES,
    ) -> None:
        self._endpoint = endpoint(url)
        self._max_body = max_body
        self._deadline = deadline
        self._timeout = urllib3.Timeout(connect=connect_timeout, read=read_timeout)
        self.proxy = proxy_for(self._endpoint.url, proxy)
        options: dict[str, Any] = {"maxsize": max_idle, "block": False, "ssl_context": tls}
        self._pool: urllib3.PoolManager = (
            _proxy_manager(self.proxy, options)
            if self.proxy is not None
            else urllib3.PoolManager(**options)
        )
        self._pool.pool_classes_by_scheme = {"http": _WatchedHTTPPool, "https": _WatchedHTTPSPool}
        # Without a proxy every send goes to one host: its pool, found once, not per send.
        self._direct = None if self.proxy else self._pool.connection_from_url(self._endpoint.url)
        self._request_target = _request_target(self._endpoint.url)  # parsed once, not per send

    def post(self, body: bytes, headers: dict[str, str], *, url: str | None = None) -> Reply:
        """POST to the transport's URL, or to ``url`` on the same scheme, host and port."""
        target = self._endpoint.url if url is None else self._same_origin(url)
        authorization = self._endpoint.authorization
        if authorization and not any(name.lower() == "authorization" for name in headers):
            headers = {"Authorization": authorization, **headers}
        _check_headers(headers)
        with deadlines.Deadline(self._deadline) as send:
            try:
                reply = self._post(target, body, headers)
            except Exception as err:
                if send.expired:
                    raise DeadlineExceededError(f"no answer within {self._deadline:g}s") from err
                raise
        if send.expired:  # a socket shut mid-headers can read as a short, complete answer
            raise DeadlineExceededError(f"no answer within {self._deadline:g}s")
        _last.reply = reply
        return reply

    def _same_origin(self, url: str) -> str:
        other = endpoint(url).url
        if urlsplit(other)[:2] != urlsplit(self._endpoint.url)[:2]:
            raise BadUrlError("not on the scheme, host and port the sink posts to")
        return other

    def _post(self, url: str, body: bytes, headers: dict[str, str]) -> Reply:
        opener = self._pool.urlopen if self._direct is None else self._direct.urlopen
        response = opener(
            "POST",
            url if self._direct is None else self._path_and_query(url),
            body=body,
            headers=headers,
            timeout=self._timeout,
            retries=False,
            redirect=False,
            preload_content=False,
            assert_same_host=False,
        )
        try:
            # One byte past the bound tells whether there is more (one read: each costs).
            body = response.read(self._max_body + 1, decode_content=False)
            if len(body) > self._max_body:
                body = body[: self._max_body]
                response.close()  # more than we read: the connection is not reused
        finally:
            response.release_conn()
        headers = dict(response.headers.items())
        return Reply(response.status, response.headers.get("Retry-After"), body, headers)

    def _path_and_query(self, url: str) -> str:
        """What goes on the request line to the host's own pool (the sink's URL's, parsed once)."""
        return self._request_target if url == self._endpoint.url else _request_target(url)

    @property
    def url(self) -> str:
        """Where this transport posts (without any user:password)."""
        return self._endpoint.url

    def close(self) -> None:
        self._pool.clear()


def _request_target(url: str) -> str:
    return urllib3.util.parse_url(url).request_uri


def _proxy_manager(proxy: str, options: dict[str, Any]) -> urllib3.ProxyManager:
    url, headers = proxy_auth(proxy)  # user:password@ in the URL: a header, as curl does
    return urllib3.ProxyManager(url, proxy_headers=headers, **options)


# Control characters but the tab, and DEL: what could split or end a header line.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def _check_headers(headers: dict[str, str]) -> None:
    # One regex search per string: a Python loop over every character cost ~4 µs a send.
    for name, value in headers.items():
        if _CONTROL.search(name) or _CONTROL.search(value):
            raise InvalidHeaderError(f"header {name!r} holds a line break or control character")
