"""``kube-notifier sinks test NAME --config FILE``: one marked notification through the real
receiver; the exit code says whether it took it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from notifier.cli import main
from notifier.exits import Exit
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
    assert (
        "FAILED: http_401: the receiver said: Event object is invalid (a retry would not help)"
    ) in out
    assert 'answer: HTTP 401 {"status":"unrecognized object","message":"Event object' in out


def test_an_unknown_sink_exits_5_naming_the_sinks(
    tmp_path: Path, server: WebhookServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["sinks", "test", "nope", "--config", str(_config(tmp_path, server))])
    assert code == Exit.CONFIG
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


def test_a_config_that_does_not_load_exits_5_as_in_every_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("sinks: [{name: hook, type: webhook, url: 'http://127.0.0.1:9/'}]\nrulez: []\n")
    assert main(["sinks", "test", "hook", "--config", str(path)]) == Exit.CONFIG
    assert main(["rules", "check", str(path)]) == Exit.CONFIG
    out = capsys.readouterr().out
    assert f"{path}:2:1: rulez: unknown key 'rulez' (did you mean 'rules'?)" in out
    assert main(["sinks", "test", "hook", "--config", str(tmp_path / "absent.yaml")]) == 5
    assert f"{tmp_path / 'absent.yaml'}: cannot read: No such file or directory" in (
        capsys.readouterr().out
    )


def test_a_sink_that_cannot_be_built_exits_5(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.yaml"
    missing = tmp_path / "no-such-token"
    path.write_text(f"sinks: [{{name: s, type: slack, channel: '#x', token_file: '{missing}'}}]\n")
    assert main(["sinks", "test", "s", "--config", str(path)]) == Exit.CONFIG
    assert str(missing) in capsys.readouterr().out
