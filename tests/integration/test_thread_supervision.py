"""An informer thread that dies of what it did not expect is logged, counted and fails /healthz."""

from __future__ import annotations

import time

import pytest
from prometheus_client import REGISTRY

from notifier.kinds.registry import KINDS
from notifier.objects import Kind
from notifier.origin import Origin
from notifier.service.health import _threads
from notifier.source.client import RawClient
from notifier.source.deltas import Delta
from notifier.source.informer import Informer
from notifier.supervision import forget_crashes
from tests.controlplane.cluster import ControlPlane
from tests.integration.harness import cluster_access
from tests.integration.kube import Kube

pytestmark = pytest.mark.integration


class _FailsOnResync:
    def handle(self, deltas: list[Delta]) -> None:
        if any(d.origin is Origin.RESYNC for d in deltas):
            raise RuntimeError("handler broke on resync")


def _crashes(family: str) -> float:
    return REGISTRY.get_sample_value("kube_notifier_thread_crashes_total", {"thread": family}) or 0


def test_a_resync_thread_that_dies_is_counted_and_fails_liveness(
    control_plane: ControlPlane, caplog: pytest.LogCaptureFixture
) -> None:
    forget_crashes()
    kube = Kube(control_plane)
    ns = kube.namespace("resync")
    kube.create_pod(ns, "web")
    before = _crashes("resync")
    informer = Informer(
        Kind.POD,
        client=RawClient(cluster_access(control_plane)),
        handler=_FailsOnResync(),
        namespaces=[ns],
        resync_seconds=0.2,
        kinds=KINDS,
    )
    informer.start()
    try:
        deadline = time.monotonic() + 30
        while informer.alive and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not informer.alive
        assert _crashes("resync") == before + 1
        result = _threads()
        assert not result.ok and "resync-Pod died (RuntimeError: handler broke" in result.detail
        assert "thread resync-Pod died" in caplog.text
    finally:
        informer.stop()
        forget_crashes()
