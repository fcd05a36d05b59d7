"""PagerDuty, Opsgenie, Teams, Discord, Google Chat, Mattermost and Telegram, each against a local
server that checks the request shape its service documents, firing then resolved; and each
answering the documented errors (429 with Retry-After, 5xx, permanent 4xx) without a secret in
what the sink says."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from notifier.sinks.base import Receiver, SendError, Sink
from notifier.sinks.building import build_sink
from notifier.sinks.config import SinkConfig
from notifier.sinks.thread_roots import MemoryThreads
from tests.support.http_proxy import HttpProxy
from tests.support.webhook_server import ReceivedRequest, Reply, WebhookServer
from tests.unit.sinks.told import firing_and_resolved

SECRET = "S3CRETtoken"
Check = Callable[[list[ReceivedRequest]], None]


def _settings(kind: str, base: str) -> dict[str, Any]:
    return {
        "pagerduty": {"routing_key": SECRET.ljust(32, "x"), "url": f"{base}/v2/enqueue"},
        "opsgenie": {"api_key": SECRET, "api_url": base},
        "msteams": {"url": f"{base}/workflows/run?sig={SECRET}"},
        "discord": {"url": f"{base}/api/webhooks/1/{SECRET}"},
        "googlechat": {"url": f"{base}/v1/spaces/S/messages?key=K&token={SECRET}"},
        "mattermost": {"url": f"{base}/hooks/{SECRET}"},
        "telegram": {"bot_token": f"123:{SECRET}", "chat_id": "-1001", "api_url": base},
    }[kind]


def _pagerduty(requests: list[ReceivedRequest]) -> None:
    trigger, resolve = (r.json() for r in requests)
    assert [r.path for r in requests] == ["/v2/enqueue"] * 2
    assert len(trigger["routing_key"]) == 32 and trigger["event_action"] == "trigger"
    assert resolve["event_action"] == "resolve" and resolve["dedup_key"] == trigger["dedup_key"]
    assert 0 < len(trigger["dedup_key"]) <= 255
    payload = trigger["payload"]
    assert 0 < len(payload["summary"]) <= 1024 and payload["source"]
    assert payload["severity"] == "critical" and isinstance(payload["custom_details"], dict)


def _opsgenie(requests: list[ReceivedRequest]) -> None:
    create, close = (r.json() for r in requests)
    alias = create["alias"]
    assert [r.path for r in requests] == [
        "/v2/alerts",
        f"/v2/alerts/{alias}/close?identifierType=alias",
    ]
    assert all(r.header("Authorization") == f"GenieKey {SECRET}" for r in requests)
    assert 0 < len(create["message"]) <= 130 and create["priority"] == "P1"
    assert len(create["tags"]) <= 20 and all(0 < len(t) <= 50 for t in create["tags"])
    assert all(isinstance(v, str) for v in create["details"].values())
    assert set(close) == {"user", "source", "note"} and close["note"].startswith("[RESOLVED]")


def _teams(requests: list[ReceivedRequest]) -> None:
    for body in (r.json() for r in requests):
        assert body["type"] == "message"
        [attachment] = body["attachments"]
        assert attachment["contentType"] == "application/vnd.microsoft.card.adaptive"
        card = attachment["content"]
        assert card["type"] == "AdaptiveCard" and card["version"] == "1.4"
        assert all(block["type"] == "TextBlock" and block["text"] for block in card["body"])


def _discord(requests: list[ReceivedRequest]) -> None:
    for body in (r.json() for r in requests):
        assert 0 < len(body["content"]) <= 2000 and body["allowed_mentions"] == {"parse": []}


def _googlechat(requests: list[ReceivedRequest]) -> None:
    firing, resolved = (r.json() for r in requests)
    assert all(
        "messageReplyOption=REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD" in r.path for r in requests
    )
    assert 0 < len(firing["text"]) <= 4096
    assert firing["thread"]["threadKey"] == resolved["thread"]["threadKey"]


def _mattermost(requests: list[ReceivedRequest]) -> None:
    for body in (r.json() for r in requests):
        assert 0 < len(body["text"]) <= 16383 and body["username"] == "kube-notifier"


def _telegram(requests: list[ReceivedRequest]) -> None:
    first, reply = (r.json() for r in requests)
    assert all(r.path == f"/bot123:{SECRET}/sendMessage" for r in requests)
    assert first["chat_id"] == "-1001" and 0 < len(first["text"]) <= 4096
    assert "reply_parameters" not in first
    assert reply["reply_parameters"] == {"message_id": 42, "allow_sending_without_reply": True}


CHECKS: dict[str, Check] = {
    "pagerduty": _pagerduty, "opsgenie": _opsgenie, "msteams": _teams, "discord": _discord,
    "googlechat": _googlechat, "mattermost": _mattermost, "telegram": _telegram,
}  # fmt: skip
TELEGRAM_OK = Reply(200, body=b'{"ok":true,"result":{"message_id":42,"chat":{"id":-1001}}}')


@pytest.fixture
def server() -> Iterator[WebhookServer]:
    with WebhookServer() as running:
        yield running


def _sink(kind: str, server: WebhookServer) -> Sink:
    settings = {"name": "out", "type": kind, **_settings(kind, server.base_url)}
    config = TypeAdapter(SinkConfig).validate_python(settings)
    return build_sink(config, threads=MemoryThreads())


@pytest.mark.parametrize("kind", sorted(CHECKS))
def test_firing_then_resolved_in_the_documented_shape(kind: str, server: WebhookServer) -> None:
    firing, resolved = firing_and_resolved({"type": kind, **_settings(kind, "http://127.0.0.1:9")})
    server.answer(TELEGRAM_OK, times=None)
    sink = _sink(kind, server)
    sink.send(firing)
    sink.send(resolved)
    sink.close()
    CHECKS[kind](server.received())
    assert isinstance(sink, Receiver) and sink.preview(firing).startswith("{")


@pytest.mark.parametrize("kind", sorted(CHECKS))
@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (Reply(429, headers={"Retry-After": "7"}), ("http_429", True, 7.0)),
        (Reply(429, body=b'{"ok":false,"error_code":429,"parameters":{"retry_after":5}}'),
         ("http_429", True, 5.0)),
        (Reply(503), ("http_503", True, None)),
        (Reply(400, body=f'{{"error":"bad {SECRET}"}}'.encode()), ("http_400", False, None)),
        (Reply(403), ("http_403", False, None)),
    ],
)  # fmt: skip
def test_documented_errors_are_classified_without_secrets(
    kind: str, server: WebhookServer, reply: Reply, expected: tuple[str, bool, float | None]
) -> None:
    firing, _ = firing_and_resolved({"type": kind, **_settings(kind, "http://127.0.0.1:9")})
    server.answer(reply)
    with pytest.raises(SendError) as caught:
        _sink(kind, server).send(firing)
    error = caught.value
    assert (error.reason, error.retryable, error.retry_after) == expected
    assert SECRET not in str(error) and SECRET not in error.detail


@pytest.mark.parametrize("kind", ["pagerduty", "msteams", "telegram"])
def test_a_receiver_goes_through_its_proxy(kind: str, server: WebhookServer) -> None:
    firing, _ = firing_and_resolved({"type": kind, **_settings(kind, "http://127.0.0.1:9")})
    server.answer(TELEGRAM_OK, times=None)
    settings = {"name": "out", "type": kind, **_settings(kind, server.base_url)}
    with HttpProxy() as proxy:
        config = TypeAdapter(SinkConfig).validate_python({**settings, "proxy": proxy.url})
        build_sink(config, threads=MemoryThreads()).send(firing)
        assert len(proxy.forwarded) == 1 and proxy.forwarded[0].startswith("POST http://127.0.0.1")
    assert len(server.received()) == 1


def test_capabilities_are_what_docs_receivers_md_says() -> None:
    table = (Path(__file__).resolve().parents[3] / "docs" / "receivers.md").read_text()
    rows = {row.split("|")[1].strip(" `"): row.split("|")[2:5] for row in table.splitlines()
            if row.startswith("| `")}  # fmt: skip
    for kind in sorted(CHECKS):
        with WebhookServer() as server:
            sink = _sink(kind, server)
        assert isinstance(sink, Receiver)
        said = [cell.strip() != "-" for cell in rows[kind]]
        found = sink.capabilities
        assert said == [found.resolve, found.threads, found.update_in_place], kind
