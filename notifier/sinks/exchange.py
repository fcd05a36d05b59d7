"""One HTTP exchange on a libcurl handle (PyPI ``pycurl``), and what went wrong as our errors.

libcurl does the HTTP/1.1 framing, keep-alive, TLS (CA file, client
certificate), proxies (a CONNECT tunnel for https), and bounds a whole send:
``TIMEOUT_MS`` is the send's deadline however the receiver trickles, and a
receiver silent for the read timeout ends it (``_Answering.progress``, which
libcurl calls about once a second while nothing moves). It runs in C: a lone
POST costs about half the CPU it did through urllib3 and ``http.client``
(docs/benchmarks.md, "The POST on libcurl").

A handle is not thread-safe: ``Transport`` keeps a pool and lends each send
one. ``configure`` sets what never changes for a transport; ``exchange`` sets
the URL, headers and body of one send, collects the answer's status, headers
and at most ``max_body`` bytes of its body (the rest is never read, and the
connection is then closed, not reused) and raises a ``TransferError`` for a
failure, classified by libcurl's code and how far the send got.
"""

from __future__ import annotations

import re
import ssl
import time
from dataclasses import dataclass

import pycurl

from notifier.sinks.transfer_words import described, silence

# libcurl's codes (curl/curl.h); pycurl does not name every one.
_TIMED_OUT = pycurl.E_OPERATION_TIMEDOUT
_WRITE_REFUSED = pycurl.E_WRITE_ERROR  # our body collector said "enough"
_DNS, _PROXY_DNS, _CONNECT = pycurl.E_COULDNT_RESOLVE_HOST, pycurl.E_COULDNT_RESOLVE_PROXY, 7
_PROXY_HANDSHAKE = 97  # CURLE_PROXY: the proxy refused or broke the CONNECT
_CERTIFICATE = frozenset({51, 60, 83})  # peer failed verification, issuer error
_TLS = frozenset({35, 53, 54, 58, 59, 64, 66, 77, 80, 82, 90, 91, 98})
_BAD_URL = frozenset({1, 3})


class TransferError(ConnectionError):
    """A send that did not get a whole answer; ``reason`` as ``failures`` names it."""

    reason = "connection_error"

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


class DnsError(TransferError):
    reason = "dns_error"


class ProxyFailedError(TransferError):
    reason = "proxy_error"


class TlsFailedError(TransferError):
    reason = "tls_error"


class CertificateRefusedError(TlsFailedError):
    reason = "tls_verify_failed"


class ConnectTimeoutError(TransferError):
    reason = "connect_timeout"


class StalledError(TransferError):
    """No byte for the read timeout."""

    reason = "timeout"


class DeadlineExceededError(TimeoutError):
    """The send (connect, write, read) did not finish within its deadline."""


class BadUrlError(ValueError):
    """A URL this transport cannot POST to (not http/https, no host)."""


# Checked in order: a refused certificate is a TLS failure too.
_BY_CODE: tuple[tuple[frozenset[int], type[TransferError]], ...] = (
    (_CERTIFICATE, CertificateRefusedError),
    (_TLS, TlsFailedError),
    (frozenset({_DNS}), DnsError),
)


@dataclass(frozen=True, slots=True)
class Tls:
    """What a send checks and presents: files are read by libcurl on connecting."""

    verify: bool = True
    ca_file: str | None = None
    client_cert: str | None = None
    client_key: str | None = None


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


@dataclass(frozen=True, slots=True)
class Route:
    """What a transport's sends share: their bounds, and what reading a failure needs."""

    connect_timeout: float
    read_timeout: float
    deadline: float
    max_body: int
    https: bool
    proxied: bool


@dataclass(frozen=True, slots=True)
class Proxy:
    url: str  # without user:password
    headers: list[str]  # Proxy-Authorization, sent to the proxy only


def configure(handle: pycurl.Curl, route: Route, tls: Tls, proxy: Proxy | None) -> None:
    """What never changes for a transport's handles."""
    handle.setopt(pycurl.NOSIGNAL, 1)  # threads: no SIGALRM for DNS timeouts
    handle.setopt(pycurl.POST, 1)
    handle.setopt(pycurl.HTTP_VERSION, pycurl.CURL_HTTP_VERSION_1_1)
    handle.setopt(pycurl.PROTOCOLS, pycurl.PROTO_HTTP | pycurl.PROTO_HTTPS)
    handle.setopt(pycurl.FOLLOWLOCATION, 0)  # a redirect is the receiver's answer
    handle.setopt(pycurl.PATH_AS_IS, 1)  # the path as configured, dot segments and all
    handle.setopt(pycurl.CONNECTTIMEOUT_MS, max(1, round(route.connect_timeout * 1000)))
    handle.setopt(pycurl.TIMEOUT_MS, max(1, round(route.deadline * 1000)))
    handle.setopt(pycurl.NOPROGRESS, 0)  # the read timeout is ours: ``_Answering.progress``
    handle.setopt(pycurl.PROXY, proxy.url if proxy else "")  # "": direct, whatever the env says
    handle.setopt(pycurl.HEADEROPT, pycurl.HEADER_SEPARATE)  # proxy headers to the proxy only
    handle.setopt(pycurl.PROXYHEADER, proxy.headers if proxy else [])
    _configure_tls(handle, tls)


def _configure_tls(handle: pycurl.Curl, tls: Tls) -> None:
    handle.setopt(pycurl.SSL_VERIFYPEER, 1 if tls.verify else 0)
    handle.setopt(pycurl.SSL_VERIFYHOST, 2 if tls.verify else 0)
    # The system's CAs as Python's ssl finds them (SSL_CERT_FILE / SSL_CERT_DIR included), not
    # the path the wheel's libcurl was built with; the sink's own CA file instead if it has one.
    paths = ssl.get_default_verify_paths()
    cafile = tls.ca_file or paths.cafile
    for option, proxy_option, value in (
        (pycurl.CAINFO, pycurl.PROXY_CAINFO, cafile),
        (pycurl.CAPATH, pycurl.PROXY_CAPATH, None if tls.ca_file else paths.capath),
    ):
        if value:
            handle.setopt(option, value)
            handle.setopt(proxy_option, value)
    if tls.client_cert is not None:
        handle.setopt(pycurl.SSLCERT, tls.client_cert)
        handle.setopt(pycurl.SSLKEY, tls.client_key or tls.client_cert)


# libcurl's calls while nothing moves come a second apart, give or take a millisecond: a read
# timeout of one second is taken at the first, not a second later at the deadline's.
_CALL_SLACK = 0.1
_STATUS_LINE = re.compile(rb"HTTP/\d(?:\.\d)? [1-5]\d\d(?: |\r|\n|$)")


class _Answering:
    """The answer as it comes: header lines (of its last status line), the body up to a
    bound, and when the receiver last made progress (a header line, a body byte, our upload)."""

    def __init__(self, max_body: int, read_timeout: float) -> None:
        self.headers: dict[str, str] = {}
        self.chunks: list[bytes] = []
        self.size = 0
        self.received = 0  # bytes of the answer so far, header lines included
        self.cut = False  # the body went past the bound: we stopped reading
        self.malformed = False  # not an HTTP status line: we stopped reading
        self.stalled = False
        self._max_body = max_body
        self._read_timeout = read_timeout
        self._moved = (0, 0)
        self._last_progress = time.monotonic()

    def header(self, line: bytes) -> int | None:
        self._last_progress = time.monotonic()
        self.received += len(line)
        if line.startswith(b"HTTP/"):  # a new answer: a 100 Continue's or a proxy's went before
            if not _STATUS_LINE.match(line):
                self.malformed = True
                return 0  # libcurl stops the transfer
            self.headers = {}
            return None
        name, colon, value = line.decode("latin-1").partition(":")
        if colon:
            self.headers[name.strip()] = value.strip()
        return None

    def body(self, chunk: bytes) -> int | None:
        self._last_progress = time.monotonic()
        self.received += len(chunk)
        room = self._max_body + 1 - self.size  # one byte past the bound says there is more
        if len(chunk) >= room:
            self.chunks.append(chunk[:room])
            self.size += room
            self.cut = True
            return 0  # libcurl stops the transfer and closes the connection
        self.chunks.append(chunk)
        self.size += len(chunk)
        return None

    def progress(self, _down_total: int, down: int, _up_total: int, up: int) -> int:
        """Called by libcurl often while bytes move and about once a second when none do:
        a receiver silent for the read timeout ends the send (so up to a second after it)."""
        now = time.monotonic()
        if (down, up) != self._moved:
            self._moved, self._last_progress = (down, up), now
        elif now - self._last_progress >= self._read_timeout - _CALL_SLACK:
            self.stalled = True
            return 1  # libcurl aborts the transfer
        return 0


def exchange(
    handle: pycurl.Curl, url: str, body: bytes, headers: list[str], route: Route
) -> Answer:
    answering = _Answering(route.max_body, route.read_timeout)
    handle.setopt(pycurl.URL, url)
    handle.setopt(pycurl.HTTPHEADER, headers)
    handle.setopt(pycurl.POSTFIELDSIZE, len(body))
    handle.setopt(pycurl.POSTFIELDS, body)
    handle.setopt(pycurl.HEADERFUNCTION, answering.header)
    handle.setopt(pycurl.WRITEFUNCTION, answering.body)
    handle.setopt(pycurl.XFERINFOFUNCTION, answering.progress)
    started = time.monotonic()
    try:
        handle.perform()
    except pycurl.error as err:
        if not (_code_and_message(err)[0] == _WRITE_REFUSED and answering.cut):
            took = time.monotonic() - started
            raise _failure(handle, answering, err, took, route) from None
    answer = b"".join(answering.chunks)[: route.max_body]
    return Answer(handle.getinfo(pycurl.RESPONSE_CODE), answering.headers, answer)


def _failure(
    handle: pycurl.Curl, answering: _Answering, err: pycurl.error, took: float, route: Route
) -> Exception:
    """What went wrong, in words a person reads ("connection refused", "no answer in 10 s")."""
    code, message = _code_and_message(err)
    if answering.malformed:
        return TransferError("the answer is not HTTP (its status line)", code)
    if answering.stalled:
        return StalledError(silence(answering.received, route.read_timeout), code)
    if code == _TIMED_OUT:
        return _timeout(handle, answering, took, route)
    if code in _BAD_URL:
        return BadUrlError(message)
    if route.proxied and (code in (_PROXY_DNS, _PROXY_HANDSHAKE, _CONNECT) or "CONNECT" in message):
        return ProxyFailedError(f"the proxy failed: {message}", code)
    kind = next((kind for codes, kind in _BY_CODE if code in codes), TransferError)
    errno = handle.getinfo(pycurl.OS_ERRNO)
    return kind(described(code, message, received=answering.received, errno=errno), code)


def _code_and_message(err: pycurl.error) -> tuple[int, str]:
    """libcurl's failures carry (code, message); a bad argument only a message."""
    if len(err.args) == 2:
        return err.args[0], err.args[1]
    return 0, str(err.args[0])


def _timeout(handle: pycurl.Curl, answering: _Answering, took: float, route: Route) -> Exception:
    if took >= route.deadline * 0.98:
        return DeadlineExceededError(f"no whole answer within the send's {route.deadline:g} s")
    connected = handle.getinfo(pycurl.APPCONNECT_TIME if route.https else pycurl.CONNECT_TIME)
    if connected > 0:
        return StalledError(silence(answering.received, route.read_timeout), _TIMED_OUT)
    return ConnectTimeoutError(f"no connection within {route.connect_timeout:g} s", _TIMED_OUT)
