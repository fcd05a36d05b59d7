"""Silences through the API: added by the CLI, applied by two running replicas at once, expired."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from notifier.cli import main
from tests.controlplane.cluster import ControlPlane
from tests.integration.kube import Kube
from tests.integration.service import ServiceProcess
from tests.integration.test_inhibition import _crashloop
from tests.support.webhook_server import WebhookServer

pytestmark = pytest.mark.integration

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


def test_rules_test_reads_the_silences_from_the_cluster_and_names_the_one_in_force(
    control_plane: ControlPlane, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("explain")
    where = f"{ns}/silences"
    assert _cli(control_plane, where, "add", "--match", f"namespace={ns},kind=Pod",
                "--for", "1h", "--comment", "rolling the fix") == 0  # fmt: skip
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG.format(ns=ns, url="http://127.0.0.1:9/hook"))
    pod: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "api-1", "namespace": ns, "uid": "u1", "resourceVersion": "1"},
           "status": {"phase": "Running"}}  # fmt: skip
    looping = {"waiting": {"reason": "CrashLoopBackOff"}}
    crashed = {**pod, "metadata": {**pod["metadata"], "resourceVersion": "2"},
               "status": {"phase": "Running", "containerStatuses": [
                   {"name": "main", "restartCount": 3, "state": looping}]}}  # fmt: skip
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(pod))
    new.write_text(json.dumps(crashed))
    capsys.readouterr()
    cluster = ["--silences-config-map", where, "--kubeconfig", str(control_plane.kubeconfig)]
    argv = ["rules", "test", str(config), "--old", str(old), "--new", str(new), "--explain",
            *cluster]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Matched: crashloops -> hook" in out
    assert "Silenced: crashloops by silence " in out and f"namespace={ns},kind=Pod" in out
    assert "rolling the fix" in out and "--- message of rule crashloops" not in out
