"""``flapping:`` through the running service: a Node flapping Ready/NotReady is told once.

The test writes its own Node's status (no kubelet) and renews the Node's
Lease with each write, so a node lifecycle controller (when the session runs
tier 2) keeps its hands off it.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
from kubernetes import client

from tests.controlplane.cluster import ControlPlane
from tests.integration.kube import Kube
from tests.integration.service import ServiceProcess
from tests.support.webhook_server import WebhookServer

pytestmark = pytest.mark.integration

CONFIG = """
cluster_name: test
watch:
  namespaces: [{ns}]
  kinds: [Node]
sinks:
  - {{name: hook, type: webhook, url: "{url}"}}
defaults:
  dedup_window: 0s
  recovery_window: 0s
rules:
  - name: nodes-not-ready
    match: {{kinds: [Node], names: [{node}], to: [NotReady]}}
    sinks: [hook]
    send_resolved: true
    flapping: {{changes: 4, within: 8s}}
"""


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _set_ready(kube: Kube, name: str, ready: bool) -> str:
    """Write the Node's Ready condition and renew its Lease; the Node's new resourceVersion."""
    status = "True" if ready else "False"
    condition = {"type": "Ready", "status": status, "reason": f"Test{status}",
                 "lastHeartbeatTime": _now(), "lastTransitionTime": _now()}  # fmt: skip
    node = kube.core.patch_node_status(name, {"status": {"conditions": [condition]}})
    lease = {"spec": {"renewTime": time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())}}
    client.CoordinationV1Api(kube.api).patch_namespaced_lease(name, "kube-node-lease", lease)
    return str(node.metadata.resource_version)


def _acted_on(state: Path, name: str, version: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    query = "SELECT resource_version FROM seen WHERE kind = 'Node' AND key = ?"
    while True:
        with sqlite3.connect(f"file:{state}?mode=ro", uri=True, timeout=5) as conn:
            row = conn.execute(query, (name,)).fetchone()
        # At that version or a later one: in tier 2 the node lifecycle controller taints a
        # NotReady Node right after our write (etcd's revisions are numbers, in order).
        if row is not None and int(row[0]) >= int(version):
            return
        assert time.monotonic() < deadline, f"Node {name} at {version} not acted on"
        time.sleep(0.05)


@pytest.mark.timeout(180)
def test_a_node_flapping_is_told_once_and_its_end_once(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("flap")
    name = f"flappy-{ns}"
    kube.core.create_node({"metadata": {"name": name}, "spec": {"taints": [
        {"key": "kube-notifier.test/unmanaged", "effect": "NoSchedule"}]}})  # fmt: skip
    leases = client.CoordinationV1Api(kube.api)
    leases.create_namespaced_lease(
        "kube-node-lease",
        {"metadata": {"name": name}, "spec": {"holderIdentity": name, "leaseDurationSeconds": 40}},
    )
    config, state = tmp_path / "config.yaml", tmp_path / "state.db"
    config.write_text(CONFIG.format(ns=ns, url=receiver.url, node=name))
    try:
        _set_ready(kube, name, True)
        service = ServiceProcess(config, control_plane.kubeconfig, state).start()
        try:
            service.wait_ready()
            service.wait_for_output(lambda out: "initial list acted on" in out)
            for step in range(6):  # NotReady, Ready, ... : six changes, each acted on
                _acted_on(state, name, _set_ready(kube, name, ready=step % 2 == 1))
            receiver.wait_for(lambda got: len(got) >= 5, timeout=60)
        finally:
            assert service.stop() == 0, service.output()
    finally:
        kube.core.delete_node(name)
        leases.delete_namespaced_lease(name, "kube-node-lease")
    bodies = [request.json() for request in receiver.received()]
    statuses = [body["status"] for body in bodies]
    assert statuses == ["firing", "resolved", "firing", "flapping", "resolved"], statuses
    assert "flapping: entered or left NotReady 4 times within 8s" in bodies[3]["summary"]
    assert "no longer flapping" in bodies[4]["summary"]
    assert len({body["fingerprint"] for body in bodies}) == 1
