"""The HTTP/1.1 a webhook POST needs: one request written, one response read and framed.

``http.client`` parses response headers with the ``email`` package, which
was a third of the cost of a POST; a webhook needs only the status, the
``Retry-After`` header and enough of the framing to find the end of the
body (``Content-Length``, ``chunked`` or the end of the connection) so the
connection can be used again. Interim ``1xx`` answers are skipped. A
response that breaks the framing rules is a ``ProtocolError`` (the
connection is not reused). Bodies are read and dropped; one larger than
``MAX_BODY`` ends the connection instead of being read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import BinaryIO

MAX_LINE = 65536
MAX_HEADERS = 100
MAX_BODY = 1 << 20
_NO_BODY = frozenset({204, 304})
_BAD_HEADER_CHARS = ("\r", "\n", "\0")


class ProtocolError(ConnectionError):
    """The receiver's answer is not well-formed HTTP/1.1."""


class InvalidHeaderError(ValueError):
    """A header name or value that would break the request (a line break in it)."""


@dataclass(frozen=True, slots=True)
class Response:
    status: int
    retry_after: str | None
    reusable: bool  # the connection may carry the next request


def request_head(target: str, host: str, length: int, headers: dict[str, str]) -> bytes:
    lines = [f"POST {target} HTTP/1.1", f"Host: {host}", f"Content-Length: {length}"]
    for name, value in headers.items():
        if any(c in name or c in value for c in _BAD_HEADER_CHARS) or ":" in name:
            raise InvalidHeaderError(f"header {name!r} has a character HTTP forbids there")
        lines.append(f"{name}: {value}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def read_response(reader: BinaryIO) -> Response:
    while True:
        version, status = _status_line(reader)
        headers = _headers(reader)
        if not 100 <= status < 200:
            break
    reusable = _keeps_alive(version, headers.get("connection", ""))
    if status not in _NO_BODY:
        reusable = _drop_body(reader, headers) and reusable
    return Response(status, headers.get("retry-after"), reusable)


def _line(reader: BinaryIO) -> bytes:
    line = reader.readline(MAX_LINE + 1)
    if len(line) > MAX_LINE:
        raise ProtocolError("a line of the response is too long")
    return line


def _status_line(reader: BinaryIO) -> tuple[str, int]:
    line = _line(reader)
    if not line:
        raise ProtocolError("the connection closed before a response")
    version, _, rest = line.decode("latin-1").partition(" ")
    code = rest[:3]
    if not version.startswith("HTTP/1.") or not code.isdigit():
        raise ProtocolError(f"not an HTTP/1.x status line: {line[:40]!r}")
    return version, int(code)


def _headers(reader: BinaryIO) -> dict[str, str]:
    headers: dict[str, str] = {}
    for _ in range(MAX_HEADERS):
        line = _line(reader)
        if line in (b"\r\n", b"\n"):
            return headers
        if not line.endswith(b"\n"):
            raise ProtocolError("the connection closed in the response headers")
        name, colon, value = line.decode("latin-1").partition(":")
        if not colon:
            raise ProtocolError(f"a response header without a colon: {line[:40]!r}")
        headers[name.strip().lower()] = value.strip()
    raise ProtocolError(f"more than {MAX_HEADERS} response headers")


def _keeps_alive(version: str, connection: str) -> bool:
    tokens = {token.strip().lower() for token in connection.split(",")}
    if version == "HTTP/1.0":
        return "keep-alive" in tokens
    return "close" not in tokens


def _drop_body(reader: BinaryIO, headers: dict[str, str]) -> bool:
    """Read past the body; False when the connection cannot be reused after it."""
    if "chunked" in headers.get("transfer-encoding", "").lower():
        return _drop_chunks(reader)
    length = headers.get("content-length")
    if length is None:
        return False  # the body ends with the connection: nothing to reuse
    if not length.strip().isdigit():
        raise ProtocolError(f"Content-Length is not a number: {length!r}")
    size = int(length)
    if size > MAX_BODY:
        return False
    if len(reader.read(size)) != size:
        raise ProtocolError("the connection closed in the response body")
    return True


def _drop_chunks(reader: BinaryIO) -> bool:
    total = 0
    while True:
        size_text = _line(reader).split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            raise ProtocolError(f"a bad chunk size: {size_text[:20]!r}") from None
        if size == 0:
            _headers(reader)  # trailers, up to the blank line
            return True
        total += size
        if total > MAX_BODY:
            return False
        if len(reader.read(size + 2)) != size + 2:
            raise ProtocolError("the connection closed in a chunk")
