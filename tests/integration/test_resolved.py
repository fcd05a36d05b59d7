"""send_resolved through the running service: a crash loop told, then its end told once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.controlplane.cluster import ControlPlane
from tests.integration.kube import Kube
from tests.integration.service import serving
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
  recovery_window: 2s   # the incident ends 2 s after the recovery, told by the clock
rules:
  - name: crashloops
    match: {{kinds: [Pod], to: [CrashLoopBackOff]}}
    sinks: [hook]
    send_resolved: true
  - name: deletes
    match: {{kinds: [Pod], events: [deleted]}}
    sinks: [hook]
"""


def _status(state: dict[str, Any], ready: bool, restarts: int) -> dict[str, Any]:
    condition = {"type": "Ready", "status": "True" if ready else "False"}
    return {
        "status": {
            "phase": "Running",
            "conditions": [condition],
            "containerStatuses": [{"name": "main", "image": "busybox:1.36", "imageID": "",
                                   "ready": ready, "restartCount": restarts, "state": state}],
        }
    }  # fmt: skip


def _statuses(receiver: WebhookServer) -> list[tuple[str, str]]:
    return [(r.json()["status"], r.json()["fingerprint"]) for r in receiver.received()]


def test_a_crash_loop_is_told_and_its_recovery_told_once(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("resolved")
    kube.create_pod(ns, "web")
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG.format(ns=ns, url=receiver.url))
    with serving(config, control_plane.kubeconfig, tmp_path / "state.db"):
        looping = {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 40s"}}
        kube.core.patch_namespaced_pod_status("web", ns, _status(looping, False, 3))
        receiver.wait_for_count(1, timeout=30)
        running = {"running": {"startedAt": "2026-11-24T10:00:00Z"}}
        kube.core.patch_namespaced_pod_status("web", ns, _status(running, True, 3))
        receiver.wait_for_count(2, timeout=30)
        kube.label_pod(ns, "web", "after")  # later changes: nothing more to resolve
        kube.delete_pod(ns, "web")
        receiver.wait_for_count(3, timeout=30)  # the other rule's delete: the service saw it
    [(first, told), (second, over), (third, other)] = _statuses(receiver)
    assert (first, second) == ("firing", "resolved") and told == over
    assert third == "firing" and other != told  # the delete, not a second resolution
