"""A failed send says what happened in words, and a refusal in the receiver's own words.

Against local receivers on 127.0.0.1: one that is down, one that never answers,
one that stops half-way, one whose certificate nobody signed, and services that
answer 400 with their reason in the body. The reason labels stay the bounded ones
the metrics count.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pycurl
import pytest
import yaml
from pydantic import TypeAdapter

from notifier.cli import main
from notifier.sinks.base import SendError, Sink
from notifier.sinks.building import build_sink
from notifier.sinks.config import SinkConfig
from notifier.sinks.thread_roots import MemoryThreads
from notifier.sinks.transfer_words import described
from notifier.sinks.webhook.sink import WebhookSink, WebhookTarget
from tests.support.webhook_server import HANG, Reply, WebhookServer
from tests.unit.sinks.certificates import server_context, write_self_signed
from tests.unit.sinks.factories import notification

CLASS_NAMES = ("TransferError", "StalledError", "ConnectTimeoutError", "DeadlineExceededError")
TELEGRAM_400 = b'{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}'
PAGERDUTY_400 = (
    b'{"status":"invalid event","message":"Event object is invalid",'
    b'"errors":["Invalid routing key"]}'
)


@pytest.fixture
def server() -> Iterator[WebhookServer]:
    with WebhookServer() as running:
        yield running


def failure(sink: Sink) -> SendError:
    with pytest.raises(SendError) as raised:
        sink.send(notification())
    sink.close()
    error = raised.value
    assert not any(name in str(error) for name in CLASS_NAMES), str(error)
    return error


def webhook(url: str, **options: Any) -> WebhookSink:
    return WebhookSink("hook", WebhookTarget(url=url, **options))


def receiver(kind: str, settings: dict[str, Any]) -> Sink:
    config = TypeAdapter(SinkConfig).validate_python({"name": "out", "type": kind, **settings})
    return build_sink(config, threads=MemoryThreads())


def test_a_receiver_that_is_down_refused_the_connection(server: WebhookServer) -> None:
    server.go_down()
    error = failure(webhook(server.url))
    assert (error.reason, error.retryable) == ("connection_error", True)
    assert str(error) == f"connection_error: connection refused ({server.base_url}/…)"


def test_a_receiver_that_never_answers_gave_no_answer_in_the_read_timeout(
    server: WebhookServer,
) -> None:
    server.answer(HANG)
    error = failure(webhook(server.url, read_timeout=0.5))
    assert (error.reason, error.retryable) == ("timeout", True)
    assert error.detail.startswith("no answer in 0.5 s (")


def test_a_receiver_that_stops_half_way_says_after_how_many_bytes() -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"
    with HalfAnswer(head + b"x" * 10) as url:
        error = failure(webhook(url, read_timeout=0.5))
    assert error.reason == "timeout"
    assert error.detail.startswith(f"the receiver stopped sending after {len(head) + 10} bytes")


def test_a_certificate_nobody_signed_is_not_trusted(tmp_path: Path) -> None:
    cert, key = write_self_signed(tmp_path)
    with WebhookServer(tls=server_context(cert, key)) as tls_server:
        error = failure(webhook(tls_server.url))
    assert (error.reason, error.retryable) == ("tls_verify_failed", False)
    assert error.detail.startswith("TLS certificate not trusted (")


def test_libcurl_codes_in_words() -> None:
    assert described(pycurl.E_COULDNT_RESOLVE_HOST, "x", received=0, errno=0) == (
        "name not resolved"
    )
    assert described(60, "SSL certificate problem", received=0, errno=0) == (
        "TLS certificate not trusted"
    )
    assert described(7, "Couldn't connect to server", received=0, errno=111) == (
        "connection refused"
    )
    assert described(56, "Recv failure", received=300, errno=104) == (
        "the receiver stopped sending after 300 bytes"
    )


@pytest.mark.parametrize(
    ("kind", "settings", "answer", "words"),
    [
        ("telegram", {"bot_token": "123:abc", "chat_id": "-1"}, TELEGRAM_400,
         "Bad Request: chat not found"),
        ("pagerduty", {"routing_key": "k" * 32}, PAGERDUTY_400,
         "Invalid routing key; Event object is invalid"),
        ("discord", {}, b'{"message": "Unknown Webhook", "code": 10015}', "Unknown Webhook"),
        ("msteams", {}, b"Invalid webhook request", "Invalid webhook request"),
    ],
)  # fmt: skip
def test_a_refusal_carries_the_receivers_own_words(
    server: WebhookServer, kind: str, settings: dict[str, Any], answer: bytes, words: str
) -> None:
    server.answer(Reply(400, body=answer))
    where = {"telegram": "api_url", "pagerduty": "url"}.get(kind, "url")
    target = server.base_url if kind == "telegram" else server.url
    error = failure(receiver(kind, {**settings, where: target}))
    assert (error.reason, error.retryable) == ("http_400", False)
    assert str(error) == f"http_400: the receiver said: {words}"


def test_a_receiver_quoting_our_secret_has_it_redacted(server: WebhookServer) -> None:
    key = "R0UT1NGkey" + "z" * 22
    server.answer(Reply(400, body=f'{{"errors":["Invalid routing key {key}"]}}'.encode()))
    error = failure(receiver("pagerduty", {"routing_key": key, "url": server.url}))
    assert str(error) == "http_400: the receiver said: Invalid routing key [redacted]"


def test_an_html_error_page_says_nothing_of_its_own(server: WebhookServer) -> None:
    server.answer(Reply(404, body=b"<html><body>Not Found</body></html>"))
    assert str(failure(webhook(server.url))) == "http_404"


def test_sinks_test_prints_the_receivers_words_on_the_failed_line(
    server: WebhookServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.answer(Reply(400, body=TELEGRAM_400))
    sink = {"name": "tg", "type": "telegram", "bot_token": "123:abc", "chat_id": "-1",
            "api_url": server.base_url}  # fmt: skip
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump({"sinks": [sink]}))
    assert main(["sinks", "test", "tg", "--config", str(path)]) == 1
    failed = capsys.readouterr().out.splitlines()[0]
    assert failed == (
        "sink tg (telegram): FAILED: http_400: the receiver said: Bad Request: chat not found "
        "(a retry would not help)"
    )


class HalfAnswer:
    """A receiver that sends ``answer`` after the request, then holds the connection."""

    def __init__(self, answer: bytes) -> None:
        self._answer = answer
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._done = threading.Event()

    def __enter__(self) -> str:
        threading.Thread(target=self._serve, daemon=True).start()
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}/hook"

    def __exit__(self, *_: object) -> None:
        self._done.set()
        self._listener.close()

    def _serve(self) -> None:
        conn, _ = self._listener.accept()
        with conn:
            conn.settimeout(5)
            request = b""
            while b"\r\n\r\n" not in request and (chunk := conn.recv(65536)):
                request += chunk
            conn.sendall(self._answer)
            self._done.wait(10)  # hold the connection open, silent, until the test ends
