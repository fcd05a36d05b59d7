"""Incidents through the running service: the kubelet's crash-loop cycle (terminated for the
back-off, Running and Ready for a moment, again) is told once, across a restart, and its end
keeps the worst reason it saw."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.controlplane.cluster import ControlPlane
from tests.integration.kube import Kube
from tests.integration.service import serving, wait_acted_on
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
  dedup_window: 0s          # only the incident keeps it to one message
  recovery_window: 10m      # longer than the test: Running for a moment is no recovery
rules:
  - name: crashloops
    match: {{kinds: [Pod], to: [CrashLoopBackOff, OOMKilled]}}
    sinks: [hook]
    send_resolved: true
"""


def _status(restarts: int, *, running: bool, reason: str = "Error") -> dict[str, Any]:
    """What the kubelet writes: Running and Ready, or the container ended (its back-off)."""
    code = 137 if reason == "OOMKilled" else 1
    state = {"running": {}} if running else {"terminated": {"exitCode": code, "reason": reason}}
    container = {"name": "main", "image": "busybox:1.36", "imageID": "", "ready": running,
                 "restartCount": restarts, "state": state}  # fmt: skip
    ready = {"type": "Ready", "status": "True" if running else "False"}
    return {"status": {"phase": "Running", "conditions": [ready], "containerStatuses": [container]}}


def _cycle(kube: Kube, ns: str, restarts: int, reason: str) -> str:
    """One restart of the cycle: Running and Ready, then ended; the last resourceVersion."""
    kube.core.patch_namespaced_pod_status("web", ns, _status(restarts, running=True))
    ended = _status(restarts, running=False, reason=reason)
    pod = kube.core.patch_namespaced_pod_status("web", ns, ended)
    return str(pod.metadata.resource_version)


def test_a_crash_loop_is_one_incident_across_a_restart_and_keeps_its_oom_kill(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("incidents")
    kube.create_pod(ns, "web")
    config, state = tmp_path / "config.yaml", tmp_path / "state.db"
    config.write_text(CONFIG.format(ns=ns, url=receiver.url))
    with serving(config, control_plane.kubeconfig, state):
        _cycle(kube, ns, 0, "Error")
        receiver.wait_for_count(1, timeout=30)
        version = _cycle(kube, ns, 1, "OOMKilled")
        wait_acted_on(state, {f"{ns}/web": version})
    with serving(config, control_plane.kubeconfig, state):
        version = _cycle(kube, ns, 2, "Error")
        wait_acted_on(state, {f"{ns}/web": version})
        kube.delete_pod(ns, "web")  # ends the incident at once
        receiver.wait_for_count(2, timeout=30)
    [firing, resolved] = [request.json() for request in receiver.received()]
    assert (firing["status"], resolved["status"]) == ("firing", "resolved")
    assert firing["fingerprint"] == resolved["fingerprint"]
    assert "OOMKilled" in resolved["transition"]["text"]  # its worst, not hidden by later Errors


QUICK_RECOVERY = CONFIG.replace("recovery_window: 10m ", "recovery_window: 2s  ")


def test_a_crash_loop_running_again_after_its_oom_kill_is_resolved(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    """Running and Ready again, its ``lastState`` still the OOM kill (as it stays for as long
    as the container runs): the incident ends once the recovery window has passed."""
    kube = Kube(control_plane)
    ns = kube.namespace("oom-recovers")
    kube.create_pod(ns, "web")
    config = tmp_path / "config.yaml"
    assert "recovery_window: 2s" in QUICK_RECOVERY
    config.write_text(QUICK_RECOVERY.format(ns=ns, url=receiver.url))
    with serving(config, control_plane.kubeconfig, tmp_path / "state.db"):
        _cycle(kube, ns, 0, "OOMKilled")
        receiver.wait_for_count(1, timeout=30)
        again = _status(1, running=True)
        killed = {"terminated": {"exitCode": 137, "reason": "OOMKilled"}}
        again["status"]["containerStatuses"][0]["lastState"] = killed
        kube.core.patch_namespaced_pod_status("web", ns, again)
        receiver.wait_for_count(2, timeout=30)
    [firing, resolved] = [request.json() for request in receiver.received()]
    assert (firing["status"], resolved["status"]) == ("firing", "resolved")
    assert "OOMKilled" in firing["transition"]["text"]
