"""Memory stays bounded when one pod's annotation is patched with fresh large values."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.controlplane.cluster import ControlPlane
from tests.integration.kube import Kube
from tests.integration.service import serving, wait_acted_on
from tests.support.webhook_server import WebhookServer

pytestmark = pytest.mark.integration

CONFIG = """
watch:
  namespaces: [{ns}]
sinks:
  - {{name: hook, type: webhook, url: "{url}"}}
rules:
  - {{name: crashloops, match: {{kinds: [Pod], to: [CrashLoopBackOff]}}, sinks: [hook]}}
"""
PATCHES = 400
VALUE_BYTES = 200_000


def _rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(ln.split()[1] for ln in status.splitlines() if ln.startswith("VmRSS"))) / 1024


@pytest.mark.timeout(300)
def test_rss_stays_bounded_under_annotation_churn(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("churn")
    kube.create_pod(ns, "web")
    config, state = tmp_path / "config.yaml", tmp_path / "state.db"
    config.write_text(CONFIG.format(ns=ns, url=receiver.url))
    with serving(config, control_plane.kubeconfig, state) as service:
        assert service.pid is not None
        before = _rss_mib(service.pid)
        version = ""
        for index in range(PATCHES):
            value = f"{index:06d}" + "x" * VALUE_BYTES
            body = {"metadata": {"annotations": {"note": value}}}
            patched = kube.core.patch_namespaced_pod("web", ns, body)
            version = str(patched.metadata.resource_version)
        wait_acted_on(state, {f"{ns}/web": version}, timeout=60)
        after = _rss_mib(service.pid)
        print(f"RSS {before:.0f} MiB -> {after:.0f} MiB after {PATCHES} patches of 200 KB")
        # Kept in the interning tables, 400 fresh values would be 80 MB and more.
        assert after - before < 48, f"RSS grew from {before:.0f} to {after:.0f} MiB"
