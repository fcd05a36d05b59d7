"""Grouped transitions survive a crash during group_wait and group_interval, and a gentle stop.

The rule groups CrashLoopBackOff pods by namespace. The service is killed
once its state file says the pods were acted on (the moment the loss used to
become permanent: ``seen`` recorded, nothing in the outbox), at several points
of the group's wait; the restart with the same state file must send one
digest holding every member, and nothing else.
"""

from __future__ import annotations

import signal
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from tests.controlplane.cluster import ControlPlane
from tests.integration.kube import Kube, in_parallel
from tests.integration.service import ServiceProcess, wait_acted_on
from tests.integration.test_service import _crashloop
from tests.support.webhook_server import WebhookServer

pytestmark = pytest.mark.integration

CONFIG = """
cluster_name: test
watch:
  namespaces: [{ns}]
sinks:
  - name: hook
    type: webhook
    url: {url}
rules:
  - name: failures
    match:
      kinds: [Pod]
      to: [CrashLoopBackOff]
    sinks: [hook]
    dedup_window: 0s
    group_by: [namespace]
    group_wait: {wait}s
    group_interval: {interval}s
"""


class Scene:
    def __init__(self, plane: ControlPlane, receiver: WebhookServer, tmp: Path, **timing: int):
        self.plane, self.receiver, self.kube = plane, receiver, Kube(plane)
        self.ns = self.kube.namespace("groups")
        self.config, self.state = tmp / "config.yaml", tmp / "state.db"
        self.config.write_text(CONFIG.format(ns=self.ns, url=receiver.url, **timing))

    def service(self) -> ServiceProcess:
        started = ServiceProcess(self.config, self.plane.kubeconfig, self.state).start()
        started.wait_ready()
        return started

    def crashloop(self, names: list[str]) -> None:
        in_parallel(lambda name: self.kube.create_pod(self.ns, name), names)
        in_parallel(lambda name: _crashloop(self.kube, self.ns, name), names)

    def wait_acted_on(self, names: list[str]) -> None:
        """Until the state file records each pod as it is now (committed: the service acted)."""
        read = self.kube.core.read_namespaced_pod
        versions = {
            f"{self.ns}/{n}": str(read(n, self.ns).metadata.resource_version) for n in names
        }
        wait_acted_on(self.state, versions)

    def digests(self) -> list[dict[str, Any]]:
        bodies = [request.json() for request in self.receiver.received()]
        assert all(body["type"] == "digest" for body in bodies), bodies
        return bodies


def _members(digest: dict[str, Any]) -> list[str]:
    return sorted(item["name"] for item in digest["items"])


def _kill(service: ServiceProcess) -> None:
    assert service.proc is not None
    service.proc.send_signal(signal.SIGKILL)
    service.proc.wait(10)


@pytest.mark.timeout(180)
@pytest.mark.parametrize("into_wait", [0.0, 6.0], ids=["at-once", "mid-wait"])
def test_sigkill_during_group_wait_loses_nothing(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path, into_wait: float
) -> None:
    scene = Scene(control_plane, receiver, tmp_path, wait=15, interval=60)
    pods = [f"p{i}" for i in range(5)]
    first = scene.service()
    scene.crashloop(pods)
    scene.wait_acted_on(pods)
    time.sleep(into_wait)  # not a wait for a condition: where in group_wait the kill lands
    _kill(first)
    assert receiver.received() == [], "the digest went out before group_wait ended"

    second = scene.service()
    try:
        receiver.wait_for_count(1, timeout=40)
    finally:
        assert second.stop() == 0, second.output()
    [digest] = scene.digests()
    assert _members(digest) == pods and digest["count"] == len(pods)
    assert {item["origin"] for item in digest["items"]} == {"catch_up"}


@pytest.mark.timeout(180)
@pytest.mark.parametrize("into_interval", [0.0, 4.0], ids=["at-once", "mid-interval"])
def test_sigkill_during_group_interval_loses_nothing(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path, into_interval: float
) -> None:
    scene = Scene(control_plane, receiver, tmp_path, wait=1, interval=12)
    early, late = ["a0", "a1", "a2"], ["b0", "b1"]
    first = scene.service()
    scene.crashloop(early)
    receiver.wait_for_count(1, timeout=30)  # the first digest: the group now counts its interval
    scene.crashloop(late)
    scene.wait_acted_on(late)
    time.sleep(into_interval)  # not a wait for a condition: where in group_interval the kill lands
    _kill(first)

    second = scene.service()
    try:
        receiver.wait_for_count(2, timeout=40)
    finally:
        assert second.stop() == 0, second.output()
    assert [_members(d) for d in scene.digests()] == [early, late]


@pytest.mark.timeout(180)
def test_sigterm_during_group_wait_sends_the_digest_before_exiting(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    scene = Scene(control_plane, receiver, tmp_path, wait=60, interval=60)
    pods = [f"p{i}" for i in range(5)]
    service = scene.service()
    scene.crashloop(pods)
    scene.wait_acted_on(pods)
    assert service.stop(signal.SIGTERM) == 0, service.output()

    [digest] = scene.digests()
    assert _members(digest) == pods
    with sqlite3.connect(scene.state) as conn:
        assert conn.execute("SELECT count(*) FROM outbox").fetchone() == (0,)
