"""Hostile config edits, applied while the service runs, are refused fast; health keeps answering.

Each edit once froze the process (health stopped answering, later good
configs never applied) or grew it by hundreds of MB. Here each must be
rejected (a log line) while /healthz answers, and a good edit afterwards
applies. A name regex that backtracks is a valid config: it must then meet a
long pod name without stalling the workers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.controlplane.cluster import ControlPlane
from tests.integration.kube import Kube
from tests.integration.service import ServiceProcess
from tests.integration.test_service import _crashloop
from tests.support.webhook_server import WebhookServer

pytestmark = pytest.mark.integration

GOOD = """
cluster_name: {cluster}
watch:
  namespaces: [{ns}]
sinks:
  - name: hook
    type: webhook
    url: {url}
rules:
  - name: crashloops
    match:
      kinds: [Pod]
      names: ["{names}"]
      to: [CrashLoopBackOff]
    sinks: [hook]
"""
MERGE_BOMB = "\n".join(
    ["a0: &a0 {k0: v, k1: v}"]
    + [f"a{i}: &a{i} {{<<: [*a{i - 1}, *a{i - 1}], x{i}: v}}" for i in range(1, 40)]
)


def _health_answers(service: ServiceProcess) -> None:
    assert service.get("/healthz")[0] == 200  # urlopen's 3 s timeout: a frozen process fails


def _reject(service: ServiceProcess, config: Path, write: object, rejected: int) -> None:
    if isinstance(write, bytes):
        config.write_bytes(write)
    else:
        with config.open("wb") as file:  # 100 MB, sparse
            file.truncate(100 * 1024 * 1024)
    service.wait_for_output(lambda out: out.count("rejected; the last good") >= rejected, 20)
    _health_answers(service)


@pytest.mark.timeout(180)
def test_hostile_edits_are_rejected_while_health_answers_then_a_good_one_applies(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("hostile")
    config = tmp_path / "config.yaml"
    good = GOOD.format(ns=ns, url=receiver.url, cluster="{cluster}", names="{names}")
    config.write_text(good.format(cluster="one", names="*"))
    service = ServiceProcess(config, control_plane.kubeconfig, tmp_path / "state.db").start()
    try:
        service.wait_ready()
        plain = good.format(cluster="t", names="*")
        sink = "    url: " + receiver.url + "\n"
        edits: list[object] = [
            plain.replace(
                sink, sink + "    template: {payload: {x: '{{ 7 ** 999999999 }}'}}\n"
            ).encode(),
            plain.replace(
                sink, sink + "    template: {payload: {x: \"{{ 'x' * 10**9 }}\"}}\n"
            ).encode(),
            (MERGE_BOMB + plain).encode(),
            None,  # a 100 MB file
        ]
        for rejected, edit in enumerate(edits, start=1):
            _reject(service, config, edit, rejected)

        # A valid config whose regex backtracks on Python's engine, then a long name.
        config.write_text(good.format(cluster="two", names="~(a+)+b$"))
        service.wait_for_output(lambda out: out.count("reloaded (sha256") >= 1, 20)
        long_name = "a" * 60 + "c"
        kube.create_pod(ns, long_name)
        _crashloop(kube, ns, long_name)
        kube.create_pod(ns, "aab")
        _crashloop(kube, ns, "aab")
        [request] = receiver.wait_for_count(1, timeout=30)
        assert request.json()["object"]["name"] == "aab"
        _health_answers(service)
    finally:
        assert service.stop() == 0, service.output()
