"""PodDisruptionBudgets end to end: a budget that blocks every drain is told, and its end.

The disruption controller (kube-controller-manager) writes the budget's status
from the Deployment's pods, which kwok runs; the service watches budgets and
sends to a webhook as a user would configure it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kubernetes import client

from tests.controlplane.cluster import ControlPlane
from tests.integration.kube import Kube
from tests.integration.service import ServiceProcess
from tests.support.webhook_server import WebhookServer

pytestmark = [pytest.mark.integration, pytest.mark.fullcluster]

CONFIG = """
watch: {{namespaces: [{ns}], kinds: [PodDisruptionBudget]}}
sinks: [{{name: hook, type: webhook, url: '{url}'}}]
defaults: {{recovery_window: 1s}}
rules:
  - name: drains-blocked
    match: {{kinds: [PodDisruptionBudget], to: [Blocking]}}
    send_resolved: true
    sinks: [hook]
"""


def _deployment(replicas: int) -> dict[str, Any]:
    labels = {"app": "web"}
    pod = {"containers": [{"name": "main", "image": "busybox:1.36"}],
           "nodeSelector": {"type": "kwok"}}  # fmt: skip
    return {
        "metadata": {"name": "web"},
        "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                 "template": {"metadata": {"labels": labels}, "spec": pod}},
    }  # fmt: skip


def _budget(min_available: int) -> dict[str, Any]:
    return {
        "metadata": {"name": "web"},
        "spec": {"minAvailable": min_available, "selector": {"matchLabels": {"app": "web"}}},
    }


def _told(server: WebhookServer) -> list[tuple[str, str]]:
    return [(r.json()["object"]["name"], r.json()["status"]) for r in server.received()]


def test_a_budget_that_allows_no_eviction_is_told_and_so_is_its_end(
    full_cluster: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(full_cluster)
    ns = kube.namespace("pdb")
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG.format(ns=ns, url=receiver.url))
    service = ServiceProcess(config, full_cluster.kubeconfig, "none").start()
    try:
        service.wait_ready()
        kube.apps.create_namespaced_deployment(ns, _deployment(2))
        policy = client.PolicyV1Api(kube.api)
        policy.create_namespaced_pod_disruption_budget(ns, _budget(2))  # both must stay
        receiver.wait_for(lambda _: _told(receiver) == [("web", "firing")], timeout=90)
        policy.patch_namespaced_pod_disruption_budget("web", ns, {"spec": {"minAvailable": 1}})
        receiver.wait_for(lambda _: ("web", "resolved") in _told(receiver), timeout=60)
    finally:
        assert service.stop() == 0, service.output()
    assert _told(receiver) == [("web", "firing"), ("web", "resolved")]
