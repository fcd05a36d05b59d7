"""The cached world: N Pods, Deployments and Services, created fast before anything is measured.

Objects look like what teams run, so cache sizes mean something: Pods have
two containers with env, resources, probes and mounts, a few labels and
annotations, and a Running status with conditions and container statuses,
written by the bench through the status subresource (about 8 KB of JSON
each, managedFields included, as a kubelet-run Pod's). They name a
scheduler that does not exist and no node, so neither the scheduler nor
kwok touches them: on this 2-core machine kwok makes about 15 Pods a
second Running, which would take ten minutes for 10,000. Deployments have
``replicas: 0`` (their Pods would otherwise double the Pod count) and
Services are headless (the test control plane's ClusterIP range has 254
addresses) with selectors that match no Pod.

The first ``churn_pods`` Pods carry ``bench=1``: those are the Pods the
churn patches. Everything is spread over ``namespaces`` namespaces.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from bench.e2e.api import (
    JSON,
    MERGE_PATCH,
    ApiConnection,
    Endpoint,
    deployment_path,
    pod_path,
    service_path,
)

Body = dict[str, Any]
APPS = ("api", "web", "worker", "gateway", "indexer", "cache", "billing", "auth", "cart", "feed")
CHURN_LABEL = "bench"
SEQ_LABEL = "seq"
UNSCHEDULED = "bench-no-such-scheduler"


@dataclass(frozen=True)
class FleetSize:
    pods: int
    deployments: int
    services: int
    churn_pods: int
    namespaces: int = 10
    nodes: int = 5

    @property
    def objects(self) -> int:
        return self.pods + self.deployments + self.services


def namespace_of(index: int, size: FleetSize) -> str:
    return f"bench-{index % size.namespaces}"


def pod_name(index: int) -> str:
    return f"pod-{index:05d}"


def churn_pod_keys(size: FleetSize) -> list[tuple[str, str]]:
    """(namespace, name) of the Pods the churn patches, in patch order."""
    return [(namespace_of(i, size), pod_name(i)) for i in range(size.churn_pods)]


def node_name(index: int) -> str:
    return f"kwok-node-{index}"


def _container(name: str, image: str, port: int) -> Body:
    return {
        "name": name,
        "image": image,
        "ports": [{"name": "http", "containerPort": port, "protocol": "TCP"}],
        "env": [
            {"name": "LOG_LEVEL", "value": "info"},
            {"name": "OTEL_EXPORTER_OTLP_ENDPOINT", "value": "http://otel-collector:4317"},
            {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        ],
        "resources": {
            "requests": {"cpu": "100m", "memory": "128Mi"},
            "limits": {"cpu": "500m", "memory": "256Mi"},
        },
        "readinessProbe": {"httpGet": {"path": "/ready", "port": port}, "periodSeconds": 10},
        "livenessProbe": {"httpGet": {"path": "/live", "port": port}, "periodSeconds": 20},
        "volumeMounts": [{"name": "config", "mountPath": "/etc/app", "readOnly": True}],
    }


def _pod_spec(app: str) -> Body:
    return {
        "containers": [
            _container(app, f"registry.example.com/{app}:1.4.2", 8080),
            _container("envoy", "docker.io/envoyproxy/envoy:v1.30.1", 9901),
        ],
        "volumes": [{"name": "config", "configMap": {"name": f"{app}-config"}}],
        "terminationGracePeriodSeconds": 30,
    }


def pod_body(index: int, size: FleetSize) -> Body:
    app = APPS[index % len(APPS)]
    labels = {"app": f"{app}-pods", "team": "core", "tier": "backend"}
    if index < size.churn_pods:
        labels |= {CHURN_LABEL: "1", SEQ_LABEL: "0"}
    spec = _pod_spec(app) | {"schedulerName": UNSCHEDULED}
    return {
        "metadata": {
            "name": pod_name(index),
            "labels": labels,
            "annotations": {"prometheus.io/scrape": "true", "prometheus.io/port": "9901"},
        },
        "spec": spec,
    }


def deployment_body(index: int, image_tag: str = "1.4.2") -> Body:
    app = f"{APPS[index % len(APPS)]}-{index:04d}"
    spec = _pod_spec(APPS[index % len(APPS)])
    spec["containers"][0]["image"] = f"registry.example.com/{app}:{image_tag}"
    return {
        "metadata": {"name": f"deploy-{index:04d}", "labels": {"app": app, "team": "core"}},
        "spec": {
            "replicas": 0,
            "revisionHistoryLimit": 1,
            "selector": {"matchLabels": {"app": app}},
            "template": {"metadata": {"labels": {"app": app}}, "spec": spec},
        },
    }


def service_body(index: int) -> Body:
    app = f"{APPS[index % len(APPS)]}-{index:04d}"
    return {
        "metadata": {"name": f"svc-{index:04d}", "labels": {"app": app}},
        "spec": {
            "clusterIP": "None",
            "selector": {"app": app},
            "ports": [{"name": "http", "port": 80, "targetPort": 8080}],
        },
    }


STARTED = "2026-01-05T09:30:00Z"


def pod_status(index: int) -> Body:
    """What a kubelet reports for a healthy Pod of ``pod_body``: Running and Ready."""
    app = APPS[index % len(APPS)]
    conditions = ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady")
    ip = f"10.244.{index // 250 % 250}.{index % 250 + 2}"
    return {
        "phase": "Running",
        "hostIP": f"10.1.0.{index % 50 + 10}",
        "podIP": ip,
        "podIPs": [{"ip": ip}],
        "startTime": STARTED,
        "qosClass": "Burstable",
        "conditions": [
            {"type": kind, "status": "True", "lastTransitionTime": STARTED}
            for kind in (*conditions, "PodScheduled")
        ],
        "containerStatuses": [
            _container_status(app, f"registry.example.com/{app}:1.4.2", index),
            _container_status("envoy", "docker.io/envoyproxy/envoy:v1.30.1", index),
        ],
    }


def _container_status(name: str, image: str, index: int) -> Body:
    return {
        "name": name,
        "image": image,
        "imageID": f"{image.rpartition(':')[0]}@sha256:{index:064x}",
        "containerID": f"containerd://{index:032x}{len(name):032x}",
        "ready": True,
        "started": True,
        "restartCount": 0,
        "state": {"running": {"startedAt": STARTED}},
    }


Write = tuple[str, str, Body, str]  # (method, path, body, content type)


def creations(size: FleetSize) -> Iterator[Write]:
    for i in range(size.pods):
        yield "POST", pod_path(namespace_of(i, size)), pod_body(i, size), JSON
    for i in range(size.deployments):
        yield "POST", deployment_path(namespace_of(i, size)), deployment_body(i), JSON
    for i in range(size.services):
        yield "POST", service_path(namespace_of(i, size)), service_body(i), JSON


def statuses(size: FleetSize) -> Iterator[Write]:
    for i in range(size.pods):
        path = pod_path(namespace_of(i, size), pod_name(i)) + "/status"
        yield "PATCH", path, {"status": pod_status(i)}, MERGE_PATCH


def create_namespaces(connection: ApiConnection, size: FleetSize) -> None:
    for i in range(size.namespaces):
        body = {"metadata": {"name": namespace_of(i, size), "labels": {"bench": "e2e"}}}
        connection.call("POST", "/api/v1/namespaces", body)


def write_all(endpoint: Endpoint, items: Sequence[Write], threads: int = 16) -> float:
    """Send every write from ``threads`` connections; the seconds it took. Raises on a failure."""
    started = time.monotonic()
    local = threading.local()

    def write(item: Write) -> None:
        if not hasattr(local, "connection"):
            local.connection = ApiConnection(endpoint)
        method, path, body, content_type = item
        local.connection.call(method, path, body, content_type)

    with ThreadPoolExecutor(threads) as pool:
        for _ in pool.map(write, items):
            pass
    return time.monotonic() - started
