"""Inhibition through the running service: a NotReady Node mutes its Pods' crash loops."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.controlplane.cluster import ControlPlane
from tests.integration.kube import Kube
from tests.integration.service import ServiceProcess
from tests.support.webhook_server import WebhookServer

pytestmark = pytest.mark.integration

CONFIG = """
watch:
  namespaces: [{ns}]
  kinds: [Pod, Node]
sinks:
  - {{name: hook, type: webhook, url: "{url}"}}
rules:
  - name: crashloops
    match: {{kinds: [Pod], to: [CrashLoopBackOff]}}
    sinks: [hook]
inhibit_rules:
  - name: node-down
    source: {{kinds: [Node], to: [NotReady, Unknown]}}
    target: {{kinds: [Pod]}}
    equal: [node]
"""


def _pod(name: str, node: str) -> dict[str, Any]:
    spec = {"nodeName": node, "containers": [{"name": "main", "image": "busybox:1.36"}]}
    return {"metadata": {"name": name}, "spec": spec}


def _crashloop(kube: Kube, ns: str, name: str) -> None:
    state = {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 40s"}}
    status = {"phase": "Running", "containerStatuses": [
        {"name": "main", "image": "busybox:1.36", "imageID": "", "ready": False,
         "restartCount": 3, "state": state}]}  # fmt: skip
    kube.core.patch_namespaced_pod_status(name, ns, {"status": status})


def test_a_not_ready_node_mutes_the_crash_loops_of_its_pods(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("inhibit")
    node = f"down-{ns}"
    taint = {"key": "kube-notifier.test/unmanaged", "effect": "NoSchedule"}
    kube.core.create_node({"metadata": {"name": node}, "spec": {"taints": [taint]}})
    try:
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        ready = {"type": "Ready", "status": "False", "reason": "KubeletDown",
                 "lastHeartbeatTime": now, "lastTransitionTime": now}  # fmt: skip
        kube.core.patch_node_status(node, {"status": {"conditions": [ready]}})
        kube.core.create_namespaced_pod(ns, _pod("on-the-down-node", node))
        kube.core.create_namespaced_pod(ns, _pod("elsewhere", f"fine-{ns}"))
        config = tmp_path / "config.yaml"
        config.write_text(CONFIG.format(ns=ns, url=receiver.url))
        service = ServiceProcess(config, control_plane.kubeconfig, "none").start()
        try:
            service.wait_ready()
            _crashloop(kube, ns, "on-the-down-node")
            _crashloop(kube, ns, "elsewhere")
            [told] = receiver.wait_for_count(1, timeout=30)
            metric = 'kube_notifier_rules_suppressed_total{reason="inhibited"} 1.0'
            deadline = time.monotonic() + 30
            while metric not in service.get("/metrics")[1]:
                assert time.monotonic() < deadline, "the muted crash loop was never counted"
                time.sleep(0.1)
        finally:
            assert service.stop() == 0
    finally:
        kube.core.delete_node(node)
    assert told.json()["object"]["name"] == "elsewhere"
    assert len(receiver.received()) == 1
