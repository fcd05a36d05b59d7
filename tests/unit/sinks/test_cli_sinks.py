"""``kube-notifier sinks test NAME --config FILE``: one marked notification through the real
receiver; the exit code says whether it took it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from notifier.cli import main
from tests.support.webhook_server import Reply, WebhookServer


@pytest.fixture
def server() -> Iterator[WebhookServer]:
    with WebhookServer() as running:
        yield running


def _config(tmp_path: Path, server: WebhookServer) -> Path:
    config = {
        "cluster_name": "prod-eu",
        "sinks": [
            {"name": "hook", "type": "webhook", "url": server.url},
            {"name": "hub", "type": "alertmanager", "urls": [server.base_url]},
            {"name": "pd", "type": "pagerduty", "routing_key": "k" * 32,
             "url": f"{server.base_url}/v2/enqueue"},
        ],
    }  # fmt: skip
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.mark.parametrize("name", ["hook", "hub", "pd"])
def test_a_receiver_that_takes_it_exits_0(
    tmp_path: Path, server: WebhookServer, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    assert main(["sinks", "test", name, "--config", str(_config(tmp_path, server))]) == 0
    out = capsys.readouterr().out
    assert f"sink {name} (" in out and "OK: the receiver took it" in out
    assert "answer: HTTP 200" in out
    [request] = server.received()
    assert "kube-notifier test of sink" in request.body.decode()


def test_a_receiver_that_refuses_it_exits_1_and_says_why(
    tmp_path: Path, server: WebhookServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.answer(
        Reply(401, body=b'{"status":"unrecognized object","message":"Event object is invalid"}')
    )
    assert main(["sinks", "test", "pd", "--config", str(_config(tmp_path, server))]) == 1
    out = capsys.readouterr().out
    assert "FAILED: http_401 (a retry would not help)" in out
    assert 'answer: HTTP 401 {"status":"unrecognized object","message":"Event object' in out


def test_an_unknown_sink_exits_2_naming_the_sinks(
    tmp_path: Path, server: WebhookServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sinks", "test", "nope", "--config", str(_config(tmp_path, server))]) == 2
    assert "no sink named 'nope' (sinks: hook, hub, pd)" in capsys.readouterr().out


def test_what_it_sent_reads_a_line_at_a_time_and_says_each_thing_once(
    tmp_path: Path, server: WebhookServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sinks", "test", "hub", "--config", str(_config(tmp_path, server))]) == 0
    out = capsys.readouterr().out
    assert '"description": "Test: sent by sinks test"' in out
    assert "notificationTest" not in out  # the transition no longer runs into the details
    [alert] = server.received()[0].json()
    assert alert["annotations"]["description"] == "Test: sent by sinks test"
