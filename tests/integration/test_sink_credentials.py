"""Credentials checked at start through the running service: a Slack token the stand-in refuses
is found before any incident, in /readyz's detail, the metric and one log line; a good one
passes (and posts nothing)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.controlplane.cluster import ControlPlane
from tests.controlplane.processes import wait_until
from tests.integration.kube import Kube
from tests.integration.service import ServiceProcess
from tests.support.slack_server import TOKEN, SlackServer

pytestmark = pytest.mark.integration

CONFIG = """
watch: {{namespaces: [{ns}], kinds: [Pod]}}
sinks:
  - {{name: ops, type: slack, token: "{token}", channel: "#ops", base_url: "{api}"}}
rules:
  - {{name: crashloops, match: {{kinds: [Pod], to: [CrashLoopBackOff]}}, sinks: [ops]}}
"""


@pytest.fixture
def slack() -> Iterator[SlackServer]:
    with SlackServer() as server:
        yield server


def _readyz(service: ServiceProcess) -> tuple[int, dict[str, object]]:
    status, body = service.get("/readyz")
    return status, json.loads(body)


def _service(plane: ControlPlane, slack: SlackServer, tmp_path: Path, token: str) -> ServiceProcess:
    ns = Kube(plane).namespace("creds")
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG.format(ns=ns, token=token, api=slack.api_url))
    return ServiceProcess(config, plane.kubeconfig, tmp_path / "state.db").start()


def test_a_refused_token_shows_before_any_incident(
    control_plane: ControlPlane, slack: SlackServer, tmp_path: Path
) -> None:
    service = _service(control_plane, slack, tmp_path, "xoxb-revoked")
    try:
        wait_until(lambda: "ops: invalid_auth" in service.get("/readyz")[1], 30, "the refusal")
        status, body = _readyz(service)
        assert status == 503, body
        [check] = [c for c in body["checks"] if c["name"] == "sink-credentials"]  # type: ignore[attr-defined]
        assert check == {"name": "sink-credentials", "ok": False, "detail": "ops: invalid_auth"}
        metrics = service.get("/metrics")[1]
        assert 'kube_notifier_sink_credentials_ok{integration="slack",sink="ops"} 0.0' in metrics
        service.wait_for_output(lambda out: "sink ops: credentials refused: invalid_auth" in out)
        assert "xoxb-revoked" not in service.output()
    finally:
        assert service.stop() == 0
    assert slack.messages() == []


def test_a_good_token_passes_and_posts_nothing(
    control_plane: ControlPlane, slack: SlackServer, tmp_path: Path
) -> None:
    service = _service(control_plane, slack, tmp_path, TOKEN)
    try:
        service.wait_ready()
        service.wait_for_output(lambda out: "sink ops: credentials accepted" in out)
        assert _readyz(service)[0] == 200
    finally:
        assert service.stop() == 0
    assert slack.messages() == []
