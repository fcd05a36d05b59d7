from __future__ import annotations

import hashlib
import hmac
import json
import socket
import time
from pathlib import Path

import msgspec
import pytest

from notifier.notifications import decoded
from notifier.sinks.base import SendError
from notifier.sinks.webhook.payload import payload_of
from notifier.sinks.webhook.signing import SIGNATURE_HEADER, TIMESTAMP_HEADER
from notifier.sinks.webhook.sink import WebhookSink, WebhookTarget
from tests.support.webhook_server import HANG, Reply, WebhookServer
from tests.unit.sinks.certificates import server_context, write_self_signed
from tests.unit.sinks.factories import notification

SECRET = b"s3cret-signing-key"


def sink_for(url: str, **options: object) -> WebhookSink:
    return WebhookSink("hook", WebhookTarget(url=url, **options))  # type: ignore[arg-type]


def send_error(sink: WebhookSink) -> SendError:
    with pytest.raises(SendError) as raised:
        sink.send(notification())
    return raised.value


def verify_as_documented(secret: bytes, timestamp: str, body: bytes, signature: str) -> bool:
    """The receiver's check, written as docs/delivery.md shows it."""
    expected = hmac.new(secret, timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    fresh = abs(time.time() - int(timestamp)) <= 300
    return fresh and hmac.compare_digest(f"sha256={expected}", signature)


def test_posts_the_payload_with_idempotency_key_and_custom_headers(server: WebhookServer) -> None:
    sink = sink_for(server.url, headers={"Authorization": "Bearer abc", "X-Team": "ops"})
    sent = notification(facts={"reason": "CrashLoopBackOff"})

    sink.send(sent)

    (request,) = server.received()
    assert request.method == "POST"
    assert request.json() == payload_of(sent.facts)
    assert request.json()["reason"] == "CrashLoopBackOff"
    assert request.header("Content-Type") == "application/json"
    assert request.header("Idempotency-Key") == sent.id
    assert request.header("Authorization") == "Bearer abc"
    assert request.header("X-Team") == "ops"
    assert request.header(SIGNATURE_HEADER) is None


def test_a_notification_written_before_facts_sends_its_text_as_the_summary(
    server: WebhookServer,
) -> None:
    written = msgspec.json.encode(notification(text="plain words"))
    old = msgspec.json.decode(written)
    old["message"], old["facts"] = {"text": "plain words", "blocks": [], "payload": {}}, None
    sent = decoded(msgspec.json.encode(old))

    sink_for(server.url).send(sent)

    assert server.received()[0].json()["summary"] == "plain words"


def test_cloudevents_structured_mode_wraps_the_payload(server: WebhookServer) -> None:
    sent = notification(observed_at=1_700_000_000.0)

    sink_for(server.url, body_format="cloudevents").send(sent)

    (request,) = server.received()
    assert request.header("Content-Type") == "application/cloudevents+json; charset=utf-8"
    event = request.json()
    assert event["specversion"] == "1.0"
    assert event["id"] == sent.id
    assert event["subject"] == sent.ordering_key
    assert event["time"] == "2023-11-14T22:13:20+00:00"
    assert event["data"] == payload_of(sent.facts)
    assert event["source"] and event["type"]


def test_the_signature_verifies_as_documented(server: WebhookServer) -> None:
    sink_for(server.url, hmac_secret=SECRET).send(notification())

    (request,) = server.received()
    timestamp = request.header(TIMESTAMP_HEADER)
    signature = request.header(SIGNATURE_HEADER)
    assert timestamp is not None and signature is not None
    assert signature.startswith("sha256=")
    assert verify_as_documented(SECRET, timestamp, request.body, signature)


def test_the_signature_fails_for_an_altered_body_or_another_key(server: WebhookServer) -> None:
    sink_for(server.url, hmac_secret=SECRET).send(notification(facts={"restart_count": 3}))

    (request,) = server.received()
    timestamp, signature = request.header(TIMESTAMP_HEADER), request.header(SIGNATURE_HEADER)
    assert timestamp is not None and signature is not None
    altered = request.body.replace(b"3", b"0")
    assert altered != request.body
    assert not verify_as_documented(SECRET, timestamp, altered, signature)
    assert not verify_as_documented(b"other-key", timestamp, request.body, signature)
    assert not verify_as_documented(SECRET, str(int(timestamp) + 1), request.body, signature)


@pytest.mark.parametrize("status", [500, 502, 503, 408, 429])
def test_server_errors_and_throttling_are_retryable(server: WebhookServer, status: int) -> None:
    server.answer(status)

    error = send_error(sink_for(server.url))

    assert error.retryable
    assert error.reason == f"http_{status}"
    assert error.retry_after is None


def test_retry_after_is_passed_on(server: WebhookServer) -> None:
    server.answer(Reply(429, headers={"Retry-After": "7"}))

    error = send_error(sink_for(server.url))

    assert (error.retryable, error.retry_after) == (True, 7.0)


@pytest.mark.parametrize("status", [400, 401, 404, 410, 301])
def test_other_statuses_are_permanent(server: WebhookServer, status: int) -> None:
    server.answer(Reply(status, headers={"Location": "http://example.invalid/"}))

    error = send_error(sink_for(server.url))

    assert not error.retryable
    assert error.reason == f"http_{status}"
    assert len(server.received()) == 1


def test_a_receiver_that_is_down_is_a_retryable_connection_error_without_the_url(
    server: WebhookServer,
) -> None:
    url = f"{server.url}?token=do-not-log-me"
    server.go_down()

    error = send_error(sink_for(url))

    assert (error.reason, error.retryable) == ("connection_error", True)
    assert "do-not-log-me" not in str(error)
    assert "/hook" not in str(error)


def test_a_receiver_that_never_answers_times_out(server: WebhookServer) -> None:
    server.answer(HANG)
    sink = sink_for(server.url, read_timeout=0.3)

    started = time.monotonic()
    error = send_error(sink)

    assert (error.reason, error.retryable) == ("timeout", True)
    assert time.monotonic() - started < 2.0


def test_tls_certificates_are_verified_by_default(tmp_path: Path) -> None:
    cert, key = write_self_signed(tmp_path)
    with WebhookServer(tls=server_context(cert, key)) as tls_server:
        error = send_error(sink_for(tls_server.url))

        assert (error.reason, error.retryable) == ("tls_verify_failed", False)
        sink_for(tls_server.url, ca_file=str(cert)).send(notification())
        sink_for(tls_server.url, tls_verify=False).send(notification())
        assert len(tls_server.received()) == 2


def test_request_body_is_compact_json(server: WebhookServer) -> None:
    sent = notification()
    sink_for(server.url).send(sent)

    compact = json.dumps(payload_of(sent.facts), separators=(",", ":"), ensure_ascii=False)
    assert server.received()[0].body == compact.encode()


def test_a_proxy_that_is_down_is_a_retryable_proxy_error(server: WebhookServer) -> None:
    closed = socket.create_server(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there now

    error = send_error(sink_for(server.url, proxy=f"http://127.0.0.1:{port}"))

    assert (error.reason, error.retryable) == ("proxy_error", True)
    assert server.received() == []
