"""The alertmanager receiver through the running service, against a real Alertmanager cluster:
two peers gossiping on 127.0.0.1, routing to a local webhook. A crash loop arrives through
Alertmanager, a silence made through its API mutes another, one peer is killed, and the
first Pod's recovery still ends its alert."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.controlplane.cluster import ControlPlane
from tests.controlplane.processes import wait_until
from tests.integration.kube import Kube
from tests.integration.service import ServiceProcess
from tests.integration.test_resolved import _status
from tests.support.alertmanager import AlertmanagerCluster
from tests.support.webhook_server import WebhookServer

pytestmark = pytest.mark.integration

CONFIG = """
cluster_name: fleet-a
watch:
  namespaces: [{ns}]
  kinds: [Pod]
sinks:
  - name: hub
    type: alertmanager
    urls: ["{am0}", "{am1}"]
    labels: {{team: shop}}
    resend_interval_seconds: 2
defaults:
  dedup_window: 0s
  recovery_window: 1s
rules:
  - name: crashloops
    match: {{kinds: [Pod], to: [CrashLoopBackOff]}}
    sinks: [hub]
    send_resolved: true
    labels: {{tier: web}}
"""
LOOPING = {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 40s"}}
RUNNING = {"running": {"startedAt": "2026-11-24T10:00:00Z"}}


def _told(receiver: WebhookServer, name: str) -> list[tuple[str, dict[str, Any]]]:
    """(status, alert) of each alert Alertmanager notified about Pod ``name``."""
    return [
        (alert["status"], alert)
        for request in receiver.received()
        for alert in request.json()["alerts"]
        if alert["labels"].get("name") == name
    ]


def _updated_at(cluster: AlertmanagerCluster, peer: int, name: str) -> str:
    [alert] = cluster.api(peer, f"alerts?filter=name%3D%22{name}%22")
    return str(alert["updatedAt"])


def _silenced_in(cluster: AlertmanagerCluster, peer: int, name: str) -> bool:
    alerts = cluster.api(peer, f"alerts?filter=name%3D%22{name}%22")
    return any(a["status"]["state"] == "suppressed" and a["status"]["silencedBy"] for a in alerts)


def test_alerts_reach_alertmanager_are_silenced_and_resolved_with_a_peer_gone(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("am")
    kube.create_pod(ns, "web1")
    kube.create_pod(ns, "web2")
    with AlertmanagerCluster(tmp_path / "am", receiver.url) as cluster:
        config = tmp_path / "config.yaml"
        config.write_text(CONFIG.format(ns=ns, am0=cluster.url(0), am1=cluster.url(1)))
        service = ServiceProcess(config, control_plane.kubeconfig, tmp_path / "state.db").start()
        try:
            service.wait_ready()
            started = time.monotonic()
            kube.core.patch_namespaced_pod_status("web1", ns, _status(LOOPING, False, 3))
            wait_until(lambda: bool(_told(receiver, "web1")), 30, "web1 through Alertmanager")
            round_trip = time.monotonic() - started
            [(status, alert), *_] = _told(receiver, "web1")
            assert status == "firing"
            assert alert["labels"] == {
                "alertname": "crashloops", "cluster": "fleet-a", "namespace": ns,
                "kind": "Pod", "name": "web1", "state": "CrashLoopBackOff",
                "severity": "critical", "team": "shop", "tier": "web",
            }  # fmt: skip
            assert alert["annotations"]["summary"].startswith(f"[fleet-a] Pod {ns}/web1")

            # A restart goes on refreshing what fires, from the state file, at once.
            assert service.stop() == 0
            stopped_at = _updated_at(cluster, 1, "web1")
            service = ServiceProcess(config, control_plane.kubeconfig, tmp_path / "state.db")
            service.start().wait_ready()
            wait_until(
                lambda: _updated_at(cluster, 1, "web1") != stopped_at, 30,
                "web1 refreshed by the restarted service",
            )  # fmt: skip

            now = datetime.now(UTC)
            silence = cluster.api(0, "silences", {
                "matchers": [{"name": "name", "value": "web2", "isRegex": False, "isEqual": True}],
                "startsAt": now.isoformat(), "endsAt": (now + timedelta(hours=1)).isoformat(),
                "createdBy": "integration test", "comment": "web2 is being fixed",
            })  # fmt: skip
            assert silence["silenceID"]
            wait_until(  # gossiped to the other peer
                lambda: any(s["id"] == silence["silenceID"] for s in cluster.api(1, "silences")),
                15, "the silence on peer 1",
            )  # fmt: skip
            kube.core.patch_namespaced_pod_status("web2", ns, _status(LOOPING, False, 3))
            wait_until(lambda: _silenced_in(cluster, 1, "web2"), 30, "web2 silenced on peer 1")

            cluster.kill(0)
            kube.core.patch_namespaced_pod_status("web1", ns, _status(RUNNING, True, 3))
            wait_until(
                lambda: any(s == "resolved" for s, _ in _told(receiver, "web1")), 30,
                "web1's resolution through the peer left",
            )  # fmt: skip
            assert _silenced_in(cluster, 1, "web2")  # refreshed, still muted
            post = _one_post(cluster, alert)
        finally:
            assert service.stop() == 0
    assert _told(receiver, "web2") == []  # muted all along
    resolved = [alert for status, alert in _told(receiver, "web1") if status == "resolved"]
    assert resolved[0]["labels"]["alertname"] == "crashloops"
    print(
        f"\nAlertmanager: status patch -> its webhook {round_trip:.2f}s (group_wait 1s);"
        f" one POST /api/v2/alerts answered in {post * 1000:.1f} ms (median of 20)"
    )


def _one_post(cluster: AlertmanagerCluster, alert: dict[str, Any]) -> float:
    """The median time one POST /api/v2/alerts takes to be answered by a peer."""
    body = [{"labels": {**alert["labels"], "name": "timing"}, "annotations": {}}]
    times = []
    for _ in range(20):
        started = time.perf_counter()
        cluster.api(1, "alerts", body)
        times.append(time.perf_counter() - started)
    return sorted(times)[len(times) // 2]
