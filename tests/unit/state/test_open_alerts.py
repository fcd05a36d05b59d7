"""What an Alertmanager sink re-sends survives a restart: kept per sink, dropped once resolved;
an Alertmanager sink built on the reopened store refreshes it at once."""

from __future__ import annotations

from pathlib import Path

from notifier.sinks.alertmanager.building import build_alertmanager
from notifier.sinks.alertmanager.config import AlertmanagerSinkConfig
from tests.support.webhook_server import WebhookServer
from tests.unit.sinks.told import firing_and_resolved
from tests.unit.state.helpers import open_store


def test_open_alerts_survive_a_restart_per_sink(tmp_path: Path) -> None:
    first = open_store(tmp_path / "s.db")
    first.alerts.keep_alert("hub", "f1", b'{"labels":{"alertname":"a"}}')
    first.alerts.keep_alert("hub", "f2", b'{"labels":{"alertname":"b"}}')
    first.alerts.keep_alert("other", "f1", b"{}")
    first.alerts.drop_alert("hub", "f2")
    first.close()
    second = open_store(tmp_path / "s.db")
    assert second.alerts.open_alerts("hub") == {"f1": b'{"labels":{"alertname":"a"}}'}
    second.close()


def test_a_restarted_sink_refreshes_what_fired_before(tmp_path: Path) -> None:
    firing, _ = firing_and_resolved({"type": "alertmanager", "urls": ["http://127.0.0.1:9"]})
    with WebhookServer() as server:
        config = AlertmanagerSinkConfig.model_validate(
            {"name": "hub", "type": "alertmanager", "urls": [server.base_url]}
        )
        first = open_store(tmp_path / "s.db")
        build_alertmanager(config, first.alerts).send(firing)
        first.close()
        second = open_store(tmp_path / "s.db")
        sink = build_alertmanager(config, second.alerts)
        sink.refresh()
        second.close()
        sent, refreshed = (request.json() for request in server.received())
    assert refreshed == sent
