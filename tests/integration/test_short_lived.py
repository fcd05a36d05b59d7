"""Pods that fail and are deleted soon after: each failure is told once (full tier, kwok)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.controlplane.cluster import ControlPlane
from tests.integration.kube import Kube, in_parallel
from tests.integration.service import ServiceProcess
from tests.support.webhook_server import WebhookServer

pytestmark = [pytest.mark.integration, pytest.mark.fullcluster]


@pytest.mark.timeout(180)
def test_failures_of_short_lived_pods_are_each_told_once(
    full_cluster: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(full_cluster)
    ns = kube.namespace("shortlived")
    config = tmp_path / "config.yaml"
    config.write_text(f"""
watch:
  namespaces: [{ns}]
sinks:
  - name: hook
    type: webhook
    url: {receiver.url}
defaults:
  dedup_window: 0
rules:
  - name: failures
    match: {{kinds: [Pod], to: [Failed]}}
    sinks: [hook]
""")
    service = ServiceProcess(config, full_cluster.kubeconfig, "none").start()
    pods = [f"job-{i:02d}" for i in range(30)]
    try:
        service.wait_ready()
        labels = {"kube-notifier.test/stage": "fail"}
        in_parallel(lambda n: kube.create_pod(ns, n, labels, schedule=True), pods)
        deadline = time.monotonic() + 90
        failed: set[str] = set()
        while len(failed) < len(pods):
            assert time.monotonic() < deadline, f"only {len(failed)} pods failed"
            for pod in kube.core.list_namespaced_pod(ns).items:
                name = pod.metadata.name or ""
                if pod.status.phase == "Failed" and name not in failed:
                    failed.add(name)
                    kube.delete_pod(ns, name)  # right after failing
            time.sleep(0.1)
        time.sleep(3.0)
        told = [json.loads(r.body)["object"]["name"] for r in receiver.received()]
        assert sorted(told) == sorted(pods)
    finally:
        assert service.stop() == 0, service.output()
