"""Reading webhook responses: status, Retry-After, and where the body ends."""

from __future__ import annotations

import io

import pytest

from notifier.sinks.webhook.http1 import (
    MAX_BODY,
    InvalidHeaderError,
    ProtocolError,
    read_response,
    request_head,
)

NEXT = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"


def read(raw: bytes) -> tuple[int, str | None, bool, bytes]:
    """The response, and what is left in the stream after it (the next response)."""
    stream = io.BytesIO(raw)
    response = read_response(stream)
    return response.status, response.retry_after, response.reusable, stream.read()


@pytest.mark.parametrize(
    ("raw", "status", "reusable"),
    [
        (b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", 200, True),
        (b"HTTP/1.1 202 Accepted\r\nTransfer-Encoding: chunked\r\n\r\n"
         b"3\r\nabc\r\n4;ext=1\r\ndefg\r\n0\r\nTrailer: x\r\n\r\n", 202, True),
        (b"HTTP/1.1 204 No Content\r\n\r\n", 204, True),
        (b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 200, True),
        (b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", 200, False),
        (b"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", 200, False),
        (b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n", 200, True),
        (b"HTTP/1.1 500 Oops\nContent-Length: 2\n\nno", 500, True),  # bare LF line ends
    ],
)  # fmt: skip
def test_the_body_is_framed_and_the_next_response_untouched(
    raw: bytes, status: int, reusable: bool
) -> None:
    got_status, _, got_reusable, rest = read(raw + NEXT)
    assert (got_status, got_reusable) == (status, reusable)
    if reusable:
        assert rest == NEXT


def test_a_body_without_length_ends_with_the_connection() -> None:
    assert read(b"HTTP/1.1 200 OK\r\n\r\nuntil the end")[2] is False


def test_a_body_too_large_to_read_ends_the_connection_instead() -> None:
    raw = f"HTTP/1.1 200 OK\r\nContent-Length: {MAX_BODY + 1}\r\n\r\n".encode()
    assert read(raw)[2] is False


def test_retry_after_and_header_case() -> None:
    raw = b"HTTP/1.1 429 Too Many\r\nretry-AFTER:  7 \r\nContent-Length: 0\r\n\r\n"
    assert read(raw)[:2] == (429, "7")


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        (b"", "closed before a response"),
        (b"SSH-2.0-OpenSSH\r\n", "not an HTTP/1.x status line"),
        (b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "without a colon"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", "closed in the response body"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", "not a number"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "bad chunk size"),
        (b"HTTP/1.1 200 OK\r\n" + b"X-A: b\r\n" * 101 + b"\r\n", "more than 100"),
        (b"HTTP/1.1 200 OK\r\nContent-Len", "closed in the response headers"),
    ],
)
def test_broken_responses_are_protocol_errors(raw: bytes, fragment: str) -> None:
    with pytest.raises(ProtocolError, match=fragment):
        read(raw)


def test_request_head() -> None:
    head = request_head("/hook?x=1", "example.com:8443", 12, {"Idempotency-Key": "k-1"})
    assert head == (
        b"POST /hook?x=1 HTTP/1.1\r\nHost: example.com:8443\r\nContent-Length: 12\r\n"
        b"Idempotency-Key: k-1\r\n\r\n"
    )


@pytest.mark.parametrize("header", [{"X-A": "v\r\nX-Injected: 1"}, {"X-A\n": "v"}, {"A:B": "v"}])
def test_header_injection_is_refused(header: dict[str, str]) -> None:
    with pytest.raises(InvalidHeaderError):
        request_head("/", "h", 0, header)
