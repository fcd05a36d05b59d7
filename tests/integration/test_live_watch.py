"""Watch changes applied by a reload, on the real API server: kinds and namespaces, no restart.

A kind the reload adds is listed quietly (what exists is the baseline, as at
a first start) and then told as any other; a kind it removes is stopped and
forgotten; a namespace it adds is watched from its quiet first list; the
kinds it does not touch lose and repeat nothing. What was started live is
baselined in the state file, so a restart catches up on it like the rest.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.controlplane.cluster import ControlPlane
from tests.integration.kube import Kube
from tests.integration.service import ServiceProcess
from tests.support.webhook_server import WebhookServer

pytestmark = pytest.mark.integration

BASE = """
watch: {{namespaces: [{namespaces}], kinds: [{kinds}]}}
sinks: [{{name: hook, type: webhook, url: '{url}'}}]
rules:
  - {{name: pod-deletes, match: {{kinds: [Pod], events: [deleted]}}, sinks: [hook]}}
"""
SERVICES_RULE = (
    "  - {name: service-adds, match: {kinds: [Service], events: [added]}, sinks: [hook]}\n"
)


def _told(server: WebhookServer) -> list[str]:
    """``Kind ns/name`` of each notification received."""
    names = []
    for request in server.received():
        obj = request.json()["object"]
        names.append(f"{obj['kind']} {obj['namespace']}/{obj['name']}")
    return names


def _service(kube: Kube, ns: str, name: str) -> None:
    body = {"metadata": {"name": name}, "spec": {"ports": [{"name": "http", "port": 80}]}}
    kube.core.create_namespaced_service(ns, body)


def test_a_reload_starts_and_stops_kinds_and_namespaces_without_a_restart(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(control_plane)
    shop, more = kube.namespace("live"), kube.namespace("more")
    path = tmp_path / "config.yaml"

    def write(namespaces: list[str], kinds: list[str], extra: str = "") -> None:
        text = BASE.format(
            namespaces=", ".join(namespaces), kinds=", ".join(kinds), url=receiver.url
        )
        path.write_text(text + extra)

    for name in ("a", "b", "c"):
        kube.create_pod(shop, name)
    kube.create_pod(more, "x")
    _service(kube, shop, "existing")
    write([shop], ["Pod"])
    service = ServiceProcess(path, control_plane.kubeconfig, tmp_path / "state.db").start()
    try:
        service.wait_ready()
        kube.delete_pod(shop, "a")
        receiver.wait_for(lambda _: _told(receiver) == [f"Pod {shop}/a"], timeout=20)

        # Services and their rule arrive: the Service that exists is the baseline
        write([shop], ["Pod", "Service"], SERVICES_RULE)
        service.wait_for_output(lambda log: "first list acted on: Service" in log, 30)
        _service(kube, shop, "fresh")
        receiver.wait_for(lambda _: f"Service {shop}/fresh" in _told(receiver), timeout=20)
        service.wait_ready(timeout=10)

        # another namespace: its Pod is the baseline, its deletion is news
        write([shop, more], ["Pod", "Service"], SERVICES_RULE)
        service.wait_for_output(lambda log: log.count("first list acted on") == 2, 30)
        kube.delete_pod(more, "x")
        receiver.wait_for(lambda _: f"Pod {more}/x" in _told(receiver), timeout=20)

        # Services leave: stopped, their readiness checks gone, nothing more told of them
        write([shop, more], ["Pod"])
        service.wait_for_output(lambda log: "watch: stopped Service" in log, 30)
        _service(kube, shop, "unwatched")
        kube.delete_pod(shop, "b")
        receiver.wait_for(lambda _: f"Pod {shop}/b" in _told(receiver), timeout=20)
        assert "synced-Service" not in service.get("/readyz")[1]
    finally:
        assert service.stop() == 0, service.output()

    assert _told(receiver) == [
        f"Pod {shop}/a", f"Service {shop}/fresh", f"Pod {more}/x", f"Pod {shop}/b"
    ]  # fmt: skip
    assert "restart" not in service.output() and "Traceback" not in service.output()

    # A restart with Services watched again: forgotten when they left, they start quiet.
    write([shop, more], ["Pod", "Service"], SERVICES_RULE)
    kube.delete_pod(shop, "c")  # while down: caught up
    service = ServiceProcess(path, control_plane.kubeconfig, tmp_path / "state.db").start()
    try:
        service.wait_ready()
        receiver.wait_for(lambda _: f"Pod {shop}/c" in _told(receiver), timeout=20)
        service.wait_for_output(lambda log: "initial list acted on" in log, 30)
        _service(kube, shop, "after-restart")
        receiver.wait_for(lambda _: f"Service {shop}/after-restart" in _told(receiver), timeout=20)
    finally:
        assert service.stop() == 0, service.output()
    assert _told(receiver)[4:] == [f"Pod {shop}/c", f"Service {shop}/after-restart"]
