"""The Alertmanager receiver against a local server checking API v2's shape (POST /api/v2/alerts):
labels that say what the alert is and stay the same to its end, annotations, startsAt, endsAt,
every peer posted to, refreshes of what is firing, and the documented failures classified."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import ValidationError

from notifier.sinks.alertmanager.building import build_alertmanager
from notifier.sinks.alertmanager.config import AlertmanagerSinkConfig
from notifier.sinks.alertmanager.open_alerts import MemoryAlerts
from notifier.sinks.alertmanager.sink import AlertmanagerSink
from notifier.sinks.base import SendError
from notifier.sinks.secrets import SinkBuildError
from tests.support.webhook_server import Reply, WebhookServer
from tests.unit.sinks.told import firing_and_resolved, told_once

FIRING, RESOLVED = firing_and_resolved({"type": "alertmanager", "urls": ["http://127.0.0.1:9"]})
RFC3339 = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"


def _check_shape(alerts: Any) -> None:
    """postableAlerts: a list of {labels, annotations, startsAt, endsAt?, generatorURL?}."""
    assert isinstance(alerts, list) and alerts
    for alert in alerts:
        assert set(alert) <= {"labels", "annotations", "startsAt", "endsAt", "generatorURL"}
        assert alert["labels"]["alertname"]
        assert all(isinstance(v, str) and v for v in alert["labels"].values())
        assert all(isinstance(v, str) for v in alert["annotations"].values())


def _sink(*urls: str, store: MemoryAlerts | None = None, **extra: Any) -> AlertmanagerSink:
    config = AlertmanagerSinkConfig.model_validate(
        {"name": "am", "type": "alertmanager", "urls": list(urls), **extra}
    )
    return build_alertmanager(config, store or MemoryAlerts())


@pytest.fixture
def server() -> Iterator[WebhookServer]:
    with WebhookServer() as running:
        yield running


def test_a_firing_then_its_resolution_are_one_alert(server: WebhookServer) -> None:
    sink = _sink(server.base_url, labels={"env": "prod"})
    sink.send(FIRING)
    sink.send(RESOLVED)
    sink.close()
    first, second = server.received()
    assert first.path == second.path == "/api/v2/alerts"
    [fired], [ended] = first.json(), second.json()
    _check_shape([fired, ended])
    assert fired["labels"] == {
        "alertname": "pod-crash", "cluster": "prod-eu", "namespace": "shop",
        "kind": "Pod", "name": "web-7d4b9c6f5d-x2x9q", "state": "CrashLoopBackOff",
        "severity": "critical", "team": "shop", "env": "prod",
    }  # fmt: skip
    assert ended["labels"] == fired["labels"] and ended["startsAt"] == fired["startsAt"]
    assert "endsAt" not in fired and ended["endsAt"] >= fired["startsAt"]
    assert fired["annotations"]["summary"].startswith("[prod-eu] Pod shop/web-7d4b9c6f5d-x2x9q")
    assert fired["annotations"]["fingerprint"] == FIRING.fingerprint
    assert "Reason: " in fired["annotations"]["description"]


def test_every_alertmanager_is_sent_each_alert_and_one_taking_it_is_enough(
    server: WebhookServer,
) -> None:
    with WebhookServer() as down:
        down.answer(503)
        sink = _sink(server.base_url, down.base_url)
        sink.send(FIRING)
        assert len(down.received()) == 1
    assert len(server.received()) == 1


def test_when_no_alertmanager_takes_it_the_send_fails_retryable(server: WebhookServer) -> None:
    server.answer(Reply(429, headers={"Retry-After": "7"}))
    with pytest.raises(SendError) as caught:
        _sink(server.base_url).send(FIRING)
    assert (caught.value.reason, caught.value.retryable, caught.value.retry_after) == (
        "http_429", True, 7.0,
    )  # fmt: skip
    server.clear_answers()
    server.answer(Reply(400, body=b'{"code":400,"message":"bad"}'))
    with pytest.raises(SendError) as refused:
        _sink(server.base_url).send(FIRING)
    assert (refused.value.reason, refused.value.retryable) == ("http_400", False)


def test_what_fires_is_refreshed_until_resolved_and_survives_a_new_sink(
    server: WebhookServer,
) -> None:
    store = MemoryAlerts()
    sink = _sink(server.base_url, store=store)
    sink.send(FIRING)
    sink.close()
    again = _sink(server.base_url, store=store)  # a restart: the store is the state file's
    assert again.open_count == 1
    again.refresh()
    [refreshed] = server.received()[-1].json()
    assert refreshed["labels"]["alertname"] == "pod-crash" and "endsAt" not in refreshed
    again.send(RESOLVED)
    assert again.open_count == 0 and store.open_alerts("am") == {}
    count = len(server.received())
    again.refresh()  # nothing left to refresh: nothing sent
    assert len(server.received()) == count


def test_the_refresh_thread_sends_at_start_then_every_interval(server: WebhookServer) -> None:
    store = MemoryAlerts()
    _sink(server.base_url, store=store).send(FIRING)
    sink = _sink(server.base_url, store=store, resend_interval_seconds=1)
    sink.start()
    try:
        server.wait_for_count(3, timeout=10)  # the send, the refresh at start, one more
    finally:
        sink.close()


def test_a_rule_without_send_resolved_is_not_refreshed(server: WebhookServer) -> None:
    [firing] = told_once({"type": "alertmanager", "urls": ["http://127.0.0.1:9"]})
    sink = _sink(server.base_url)
    sink.send(firing)
    assert sink.open_count == 0


def test_the_receivers_template_and_generator_url(server: WebhookServer) -> None:
    template = {
        "summary": "{{ kind }} {{ name }} crashed",
        "generator_url": "https://grafana.example/d/pods?var-pod={{ name }}",
    }
    sink = _sink(server.base_url, template=template)
    sink.send(FIRING)
    [alert] = server.received()[0].json()
    assert alert["annotations"]["summary"] == "Pod web-7d4b9c6f5d-x2x9q crashed"
    assert alert["generatorURL"] == "https://grafana.example/d/pods?var-pod=web-7d4b9c6f5d-x2x9q"


def test_a_template_with_an_unknown_part_or_variable_fails_at_build() -> None:
    with pytest.raises(ValidationError, match=r"unknown part 'title': this receiver's are summary"):
        _sink("http://127.0.0.1:9", template={"title": "x"})
    with pytest.raises(SinkBuildError, match=r"unknown variable 'nmae' \(did you mean 'name'\?\)"):
        _sink("http://127.0.0.1:9", template={"summary": "{{ nmae }}"})


def test_a_bearer_token_is_sent_and_never_said(server: WebhookServer) -> None:
    server.answer(401)
    sink = _sink(server.base_url, bearer_token="s3cret-token")
    with pytest.raises(SendError) as caught:
        sink.send(FIRING)
    assert server.received()[0].header("Authorization") == "Bearer s3cret-token"
    assert "s3cret" not in str(caught.value) and not caught.value.retryable


def test_a_digest_is_one_alert_per_member(server: WebhookServer) -> None:
    from notifier.notifications import Notification

    facts = dict(FIRING.facts or {})
    member = {k: v for k, v in facts.items() if k not in ("rule_labels", "send_resolved")}
    other = {**member, "name": "web-2", "fingerprint": "f2"}
    digest = Notification(
        id="d1", sink="am", rule="pod-crash", ordering_key="digest/pod-crash",
        observed_at=FIRING.observed_at,
        facts={"members": [member, other], "rule_labels": {"team": "shop"}, "summary": "2 Pods"},
    )  # fmt: skip
    _sink(server.base_url).send(digest)
    alerts = server.received()[0].json()
    _check_shape(alerts)
    assert [a["labels"]["name"] for a in alerts] == ["web-7d4b9c6f5d-x2x9q", "web-2"]
    assert all(a["labels"]["team"] == "shop" for a in alerts)


def test_the_description_is_a_line_per_detail(server: WebhookServer) -> None:
    _sink(server.base_url).send(FIRING)
    [alert] = server.received()[0].json()
    said = alert["annotations"]["description"].splitlines()
    assert said[0] == "Reason: CrashLoopBackOff: back-off 40s restarting failed container=web"
    assert said[1] == "Container: web, exit code 137, 3 restarts, last terminated: OOMKilled"
    assert len(said) == len(set(said)) == len(FIRING.facts["details"])
