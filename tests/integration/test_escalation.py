"""``escalate`` through the running service: still crash-looping past ``after``, a second sink."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tests.controlplane.cluster import ControlPlane
from tests.integration.kube import Kube
from tests.integration.service import ServiceProcess
from tests.integration.test_resolved import _status
from tests.support.webhook_server import WebhookServer

pytestmark = pytest.mark.integration

CONFIG = """
cluster_name: test
watch:
  namespaces: [{ns}]
  kinds: [Pod]
sinks:
  - {{name: chat, type: webhook, url: "{chat}"}}
  - {{name: pager, type: webhook, url: "{pager}"}}
defaults:
  dedup_window: 0s
  recovery_window: 1s
rules:
  - name: crashloops
    match: {{kinds: [Pod], to: [CrashLoopBackOff]}}
    sinks: [chat]
    send_resolved: true
    escalate: [{{after: 6s, sinks: [pager]}}]
"""


def _statuses(receiver: WebhookServer) -> list[str]:
    return [r.json()["status"] for r in receiver.received() if r.status == 200]


@pytest.mark.timeout(120)
def test_a_crash_loop_unresolved_past_after_reaches_the_second_sink_once(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("escalate")
    kube.create_pod(ns, "web")
    config = tmp_path / "config.yaml"
    with WebhookServer() as pager:
        config.write_text(CONFIG.format(ns=ns, chat=receiver.url, pager=pager.url))
        service = ServiceProcess(config, control_plane.kubeconfig, tmp_path / "state.db").start()
        try:
            service.wait_ready()
            looping = {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 40s"}}
            kube.core.patch_namespaced_pod_status("web", ns, _status(looping, False, 3))
            receiver.wait_for_count(1, timeout=30)
            told = time.monotonic()
            pager.wait_for_count(1, timeout=30)
            assert time.monotonic() - told >= 4  # after the step's time, not with the firing
            running = {"running": {"startedAt": "2026-11-24T10:00:00Z"}}
            kube.core.patch_namespaced_pod_status("web", ns, _status(running, True, 3))
            receiver.wait_for_count(2, timeout=30)
            pager.wait_for_count(2, timeout=30)
        finally:
            assert service.stop() == 0, service.output()
        assert _statuses(receiver) == ["firing", "resolved"]
        assert _statuses(pager) == ["firing", "resolved"]
        assert re.search(r"CrashLoopBackOff.* for [6-9]s$", pager.received()[0].json()["summary"])
