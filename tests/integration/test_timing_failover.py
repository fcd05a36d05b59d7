"""``for:`` across a leader failover: the standby timed the state too and tells it once."""

from __future__ import annotations

import signal
import sqlite3
import time
from pathlib import Path

import pytest

from tests.controlplane.cluster import ControlPlane
from tests.integration.kube import Kube
from tests.integration.service import ServiceProcess, keys_by_pod, until
from tests.integration.test_resolved import _status
from tests.support.webhook_server import WebhookServer

pytestmark = pytest.mark.integration

CONFIG = """
cluster_name: test
watch:
  namespaces: [{ns}]
  kinds: [Pod]
sinks:
  - {{name: hook, type: webhook, url: "{url}"}}
defaults:
  dedup_window: 0s
  recovery_window: 1s
rules:
  - name: stays-crashing
    match: {{kinds: [Pod], to: [CrashLoopBackOff], for: 10s}}
    sinks: [hook]
"""
LEADING = "kube_notifier_leader_is_leader 1.0"


def _timed(state: Path, key: str) -> bool:
    with sqlite3.connect(f"file:{state}?mode=ro", uri=True, timeout=5) as conn:
        return conn.execute("SELECT 1 FROM timers WHERE key = ?", (key,)).fetchone() is not None


@pytest.mark.timeout(180)
def test_a_leader_killed_while_pending_is_replaced_and_the_state_told_once(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("failover")
    kube.create_pod(ns, "web")
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG.format(ns=ns, url=receiver.url))
    lease = ["--leader-elect", "--lease-namespace", ns, "--lease-duration", "6"]
    states = [tmp_path / f"state-{i}.db" for i in range(2)]
    replicas = [
        ServiceProcess(
            config, control_plane.kubeconfig, states[i],
            extra=[*lease, "--identity", f"replica-{i}"],
        ).start()
        for i in range(2)
    ]  # fmt: skip
    try:
        for replica in replicas:
            replica.wait_ready()
        until(lambda: any(LEADING in r.get("/metrics")[1] for r in replicas), 30, "a leader")
        leader = next(r for r in replicas if LEADING in r.get("/metrics")[1])
        standby = next(r for r in replicas if r is not leader)
        looping = {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 40s"}}
        kube.core.patch_namespaced_pod_status("web", ns, _status(looping, False, 3))
        entered = time.monotonic()
        until(lambda: all(_timed(s, f"{ns}/web") for s in states), 30, "both replicas timing")
        assert receiver.received() == []  # pending, on both
        assert leader.stop(signal.SIGKILL) == -signal.SIGKILL
        until(lambda: LEADING in standby.get("/metrics")[1], 30, "the standby taking over")
        receiver.wait_for(lambda got: len(got) >= 1, timeout=30)
        assert time.monotonic() - entered >= 9  # after its for:, from the standby's timer
        standby.stop()
    finally:
        for replica in replicas:
            if replica.proc is not None and replica.proc.poll() is None:
                replica.stop()
    assert {name: len(keys) for name, keys in keys_by_pod(receiver).items()} == {"web": 1}
