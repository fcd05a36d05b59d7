"""Small helpers to change objects through the real API in tests (dict bodies, thread pools)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from kubernetes import client, config

from tests.controlplane.cluster import ControlPlane

UNSCHEDULED = "kube-notifier-test-unscheduled"


def api_client(plane: ControlPlane) -> client.ApiClient:
    """The ``kubernetes`` package's client: tests write objects with it (the service does not
    use the package)."""
    return config.new_client_from_config(config_file=str(plane.kubeconfig))


class Kube:
    def __init__(self, plane: ControlPlane) -> None:
        self.api = api_client(plane)
        self.core = client.CoreV1Api(self.api)
        self.apps = client.AppsV1Api(self.api)

    def namespace(self, prefix: str = "t") -> str:
        name = f"{prefix}-{uuid.uuid4().hex[:8]}"
        self.core.create_namespace({"metadata": {"name": name}})
        return name

    @staticmethod
    def pod_body(
        name: str, labels: dict[str, str] | None = None, *, schedule: bool = False
    ) -> dict[str, Any]:
        spec: dict[str, Any] = {"containers": [{"name": "main", "image": "busybox:1.36"}]}
        if not schedule:
            # No scheduler serves this name, so with the full tier up no kwok node takes the
            # pod: the test alone decides how it changes.
            spec["schedulerName"] = UNSCHEDULED
        return {"metadata": {"name": name, "labels": labels or {"app": "demo"}}, "spec": spec}

    def create_pod(
        self, ns: str, name: str, labels: dict[str, str] | None = None, *, schedule: bool = False
    ) -> None:
        self.core.create_namespaced_pod(ns, self.pod_body(name, labels, schedule=schedule))

    def label_pod(self, ns: str, name: str, value: str) -> None:
        self.core.patch_namespaced_pod(name, ns, {"metadata": {"labels": {"step": value}}})

    def delete_pod(self, ns: str, name: str) -> None:
        self.core.delete_namespaced_pod(name, ns, grace_period_seconds=0)


def in_parallel(fn: Callable[[Any], object], items: Iterable[Any], threads: int = 16) -> None:
    with ThreadPoolExecutor(threads) as pool:
        for _ in pool.map(fn, items):
            pass
