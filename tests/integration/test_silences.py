"""Silences through the API: added by the CLI, applied by two running replicas at once, expired."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from notifier.cli import main
from tests.controlplane.cluster import ControlPlane
from tests.integration.kube import Kube
from tests.integration.service import ServiceProcess
from tests.integration.test_inhibition import _crashloop
from tests.support.webhook_server import WebhookServer

CONFIG = """
watch:
  namespaces: [{ns}]
  kinds: [Pod]
sinks:
  - {{name: hook, type: webhook, url: "{url}"}}
rules:
  - name: crashloops
    match: {{kinds: [Pod], to: [CrashLoopBackOff]}}
    sinks: [hook]
"""
SILENCED = 'kube_notifier_rules_suppressed_total{reason="silenced"} 1.0'


def _cli(plane: ControlPlane, where: str, *args: str) -> int:
    return main(["silence", *args, "--config-map", where, "--kubeconfig", str(plane.kubeconfig)])


def _wait_metric(service: ServiceProcess, line: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while line not in service.get("/metrics")[1]:
        assert time.monotonic() < deadline, f"no {line!r}:\n{service.output()[-2000:]}"
        time.sleep(0.1)


def test_a_silence_mutes_on_both_replicas_at_once_and_ends_when_expired(
    control_plane: ControlPlane,
    receiver: WebhookServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("silence")
    where = f"{ns}/kube-notifier-silences"
    for name in ("api-1", "web-1"):
        kube.create_pod(ns, name)
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG.format(ns=ns, url=receiver.url))
    replicas = [
        ServiceProcess(config, control_plane.kubeconfig, "none", extra=["--silences", where])
        for _ in range(2)
    ]
    for replica in replicas:
        replica.start()
    try:
        for replica in replicas:
            replica.wait_ready()
        assert _cli(control_plane, where, "add", "--match", f"namespace={ns},name=api-*",
                    "--for", "2h", "--comment", "deploying api") == 0  # fmt: skip
        silence_id = capsys.readouterr().out.strip()
        for replica in replicas:
            replica.wait_for_output(lambda out: "1 silences, 1 active" in out, 30)
        _crashloop(kube, ns, "api-1")
        for replica in replicas:
            _wait_metric(replica, SILENCED)
        assert _cli(control_plane, where, "list") == 0
        assert "deploying api" in capsys.readouterr().out
        assert _cli(control_plane, where, "expire", silence_id) == 0
        for replica in replicas:
            replica.wait_for_output(lambda out: "1 silences, 0 active" in out, 30)
        _crashloop(kube, ns, "web-1")
        receiver.wait_for_count(2, timeout=30)  # one per replica: they do not elect a leader
    finally:
        for replica in replicas:
            assert replica.stop() == 0
    assert {r.json()["object"]["name"] for r in receiver.received()} == {"web-1"}
