"""``Transport``: POST over libcurl's keep-alive connections, within one deadline per send.

The one HTTP stack of the sinks: the webhook sink posts through it, and the
Slack sink's slack_sdk client sends its requests through it too
(``slack.posting``), so both honour the same proxies and deadline.

libcurl (``exchange``) brings what a sink needs and we do not write
ourselves: HTTP/1.1 framing, keep-alive, TLS with a CA bundle and an optional
client certificate (mTLS), proxies (``notifier.sinks.proxies`` decides which),
and a deadline for the whole send, so a receiver that trickles one byte a
second or answers ``100 Continue`` forever cannot keep a send going. The
response body is read up to ``max_body`` bytes (``MAX_BODY_BYTES`` unless the
caller needs more) and the rest never is (the connection is then closed, not
reused).

A libcurl handle serves one send at a time: the transport lends each send an
idle one (each keeps its connection alive) and keeps at most ``max_idle``.
Errors are not classified here (``failures`` does that); ``post`` raises the
``exchange`` errors. Thread-safe.
"""

from __future__ import annotations

import base64
import re
import ssl
import threading
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit, urlunsplit

import pycurl

from notifier.sinks.exchange import (
    BadUrlError,
    DeadlineExceededError,
    Proxy,
    Route,
    Tls,
    configure,
    exchange,
)
from notifier.sinks.proxies import proxy_auth, proxy_for

__all__ = [
    "MAX_BODY_BYTES",
    "BadUrlError",
    "DeadlineExceededError",
    "InvalidHeaderError",
    "Reply",
    "Tls",
    "Transport",
    "tls_context",
]

MAX_BODY_BYTES = 64 * 1024  # of a receiver's answer: we only need its status and Retry-After


_last = threading.local()  # the last answer this thread was given, for `sinks test` to show


def last_reply() -> Reply | None:
    """The last answer a send on this thread got (``kube-notifier sinks test`` prints it)."""
    reply: Reply | None = getattr(_last, "reply", None)
    return reply


def clear_last_reply() -> None:
    _last.reply = None


class InvalidHeaderError(ValueError):
    """A header name or value with a line break or a control character: never sent."""


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


def tls_context(tls: Tls) -> ssl.SSLContext:
    """Raises ``OSError`` / ``ssl.SSLError`` for files it cannot use (a config error)."""
    context = ssl.create_default_context(cafile=tls.ca_file if tls.verify else None)
    if not tls.verify:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    if tls.client_cert is not None:
        context.load_cert_chain(tls.client_cert, tls.client_key)
    return context


class Transport:
    def __init__(
        self,
        url: str,
        *,
        connect_timeout: float,
        read_timeout: float,
        deadline: float = 30.0,
        tls: Tls | None = None,
        max_idle: int = 4,
        proxy: str | None = None,
        max_body: int = MAX_BODY_BYTES,
    ) -> None:
        """Raises ``BadUrlError`` for a URL it cannot post to and ``OSError`` or
        ``ssl.SSLError`` for TLS files it cannot use (read here once, to say so at load)."""
        self._endpoint = endpoint(url)
        self._tls = tls or Tls()
        if self._tls.ca_file or self._tls.client_cert:
            tls_context(self._tls)
        self.proxy = proxy_for(self._endpoint.url, proxy)
        self._proxy = _proxy(self.proxy) if self.proxy else None
        https = self._endpoint.url.startswith("https:")
        self._route = Route(
            connect_timeout, read_timeout, deadline, max_body, https, self.proxy is not None
        )
        self._max_idle = max_idle
        self._idle: list[pycurl.Curl] = []
        self._lock = threading.Lock()
        self._closed = False

    def post(self, body: bytes, headers: dict[str, str], *, url: str | None = None) -> Reply:
        """POST to the transport's URL, or to ``url`` on the same scheme, host and port."""
        target = self._endpoint.url if url is None else self._same_origin(url)
        authorization = self._endpoint.authorization
        if authorization and not any(name.lower() == "authorization" for name in headers):
            headers = {"Authorization": authorization, **headers}
        lines = _header_lines(headers)
        handle = self._borrow()
        try:
            answer = exchange(handle, target, body, lines, self._route)
        finally:
            self._give_back(handle)
        retry_after = next(
            (value for name, value in answer.headers.items() if name.lower() == "retry-after"),
            None,
        )
        reply = Reply(answer.status, retry_after, answer.body, answer.headers)
        _last.reply = reply
        return reply

    def _borrow(self) -> pycurl.Curl:
        with self._lock:
            if self._idle:
                return self._idle.pop()
        handle = pycurl.Curl()
        configure(handle, self._route, self._tls, self._proxy)
        return handle

    def _give_back(self, handle: pycurl.Curl) -> None:
        with self._lock:
            if not self._closed and len(self._idle) < self._max_idle:
                self._idle.append(handle)
                return
        handle.close()

    def _same_origin(self, url: str) -> str:
        other = endpoint(url).url
        if urlsplit(other)[:2] != urlsplit(self._endpoint.url)[:2]:
            raise BadUrlError("not on the scheme, host and port the sink posts to")
        return other

    @property
    def url(self) -> str:
        """Where this transport posts (without any user:password)."""
        return self._endpoint.url

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for handle in idle:
            handle.close()


def _proxy(url: str) -> Proxy:
    plain, headers = proxy_auth(url)  # user:password@ in the URL: a header, as curl sends it
    return Proxy(plain, [f"{name}: {value}" for name, value in headers.items()])


# Control characters but the tab, and DEL: what could split or end a header line.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
# What libcurl would add on its own, blanked unless the caller sets them.
_CURL_DEFAULTS = ("Accept", "Content-Type", "Expect")


def _header_lines(headers: dict[str, str]) -> list[str]:
    """``Name: value`` lines; refuses a line break or control character in any of them."""
    lines = [f"{name}: {value}" if value else f"{name};" for name, value in headers.items()]
    if _CONTROL.search("".join(lines)):  # one search for all: the lines hold no break yet
        bad = next(name for name, value in headers.items() if _CONTROL.search(name + value))
        raise InvalidHeaderError(f"header {bad!r} holds a line break or control character")
    given = {name.lower() for name in headers}
    return lines + [f"{name}:" for name in _CURL_DEFAULTS if name.lower() not in given]
