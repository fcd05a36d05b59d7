"""docs/examples/receivers.yaml: each sink's template renders what its service documents, firing and
resolved, and goes out through the webhook sink to a local server that checks its shape."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from notifier.config import read_config_text
from notifier.rules.engine import RulesEngine
from notifier.sinks.rendering import ReceiverTemplate
from notifier.sinks.webhook.config import WebhookSinkConfig
from notifier.sinks.webhook.payload import PARTS
from notifier.sinks.webhook.sink import WebhookSink, WebhookTarget
from tests.support.webhook_server import WebhookServer
from tests.unit.rules.builders import NOW, crashloop
from tests.unit.rules.test_resolved import _recovered

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "receivers.yaml"


def _pagerduty(body: dict[str, Any]) -> None:
    """Events API v2 (developer.pagerduty.com, "Send an Alert Event")."""
    assert len(body["routing_key"]) == 32
    assert body["event_action"] in ("trigger", "acknowledge", "resolve")
    assert 0 < len(body["dedup_key"]) <= 255
    if body["event_action"] == "trigger":
        payload = body["payload"]
        assert 0 < len(payload["summary"]) <= 1024 and payload["source"]
        assert payload["severity"] in ("critical", "error", "warning", "info")
        assert isinstance(payload["custom_details"], dict)


def _teams(body: dict[str, Any]) -> None:
    """A Workflows webhook message: one Adaptive Card attachment."""
    assert body["type"] == "message"
    [attachment] = body["attachments"]
    assert attachment["contentType"] == "application/vnd.microsoft.card.adaptive"
    card = attachment["content"]
    assert card["type"] == "AdaptiveCard" and card["version"] == "1.4"
    assert all(block["type"] == "TextBlock" and block["text"] for block in card["body"])


def _discord(body: dict[str, Any]) -> None:
    """Execute Webhook: content of at most 2000 characters."""
    assert 0 < len(body["content"]) <= 2000
    assert body["allowed_mentions"] == {"parse": []}


def _google_chat(body: dict[str, Any]) -> None:
    """A text message of at most 4096 characters."""
    assert 0 < len(body["text"]) <= 4096


def _opsgenie(body: dict[str, Any]) -> None:
    """Alert API: create (POST /v2/alerts) and close (POST /v2/alerts/{alias}/close) bodies.

    The close body's documented fields are user, source and note; the create fields ride along.
    """
    assert 0 < len(body["message"]) <= 130 and 0 < len(body["alias"]) <= 512
    assert len(body["description"]) <= 15000 and body["priority"] in ("P1", "P2", "P3", "P4", "P5")
    assert len(body["tags"]) <= 20 and all(0 < len(tag) <= 50 for tag in body["tags"])
    assert len(body["source"]) <= 100 and len(body["entity"]) <= 512
    assert all(isinstance(value, str) for value in body["details"].values())
    assert len(body["note"]) <= 25000 and len(body["user"]) <= 100


CHECKS = {
    "pagerduty": _pagerduty,
    "opsgenie": _opsgenie,
    "teams": _teams,
    "discord": _discord,
    "google-chat": _google_chat,
}


@pytest.fixture(scope="module")
def sent() -> dict[str, list[Any]]:
    """What each sink is given for a crash loop, then for its recovery (the incident's end,
    told by the clock once the recovery window has passed)."""
    loaded = read_config_text(EXAMPLE.read_text(), "receivers.yaml", environ={})
    engine = RulesEngine(lambda: loaded.ruleset, clock=lambda: NOW)
    by_sink: dict[str, list[Any]] = {}
    firing, recovering = engine.process(crashloop()), engine.process(_recovered())
    over = engine.tick(NOW + 3600.0).notifications
    for notification in [*firing, *recovering, *over]:
        by_sink.setdefault(notification.sink, []).append(notification)
    return by_sink


def _template(sink: str) -> ReceiverTemplate:
    """The example's sink's own template (its ``payload``)."""
    loaded = read_config_text(EXAMPLE.read_text(), "receivers.yaml", environ={})
    [config] = [config for config in loaded.config.sinks if config.name == sink]
    assert isinstance(config, WebhookSinkConfig)
    return ReceiverTemplate(sink, PARTS, config.template)


def _target(sink: str, server: WebhookServer) -> WebhookTarget:
    """The example's sink, on the local server."""
    if sink != "opsgenie":
        return WebhookTarget(url=server.url)
    close = f"{server.base_url}/v2/alerts/{{fingerprint}}/close?identifierType=alias"
    return WebhookTarget(url=f"{server.base_url}/v2/alerts", resolved_url=close)


@pytest.mark.parametrize("sink", sorted(CHECKS))
def test_each_receiver_gets_its_shape_firing_then_resolved(
    sent: dict[str, list[Any]], sink: str
) -> None:
    firing, resolved = sent[sink]
    with WebhookServer() as server:
        target = WebhookSink(sink, _target(sink, server), template=_template(sink))
        try:
            target.send(firing)
            target.send(resolved)
        finally:
            target.close()
        bodies = [request.json() for request in server.received()]
        paths = [request.path for request in server.received()]
    for body in bodies:
        CHECKS[sink](body)
    if sink == "pagerduty":
        assert [b["event_action"] for b in bodies] == ["trigger", "resolve"]
        assert bodies[0]["dedup_key"] == bodies[1]["dedup_key"]
    elif sink == "opsgenie":  # opened at one URL, closed at another by the same alias
        alias = bodies[0]["alias"]
        assert paths == ["/v2/alerts", f"/v2/alerts/{alias}/close?identifierType=alias"]
        assert "resolved: " in bodies[1]["note"] and bodies[0]["note"] == ""
    else:
        assert "resolved" in str(bodies[1]).lower() or "✅" in str(bodies[1])
