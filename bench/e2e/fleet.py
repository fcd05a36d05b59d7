"""The cached world: N Pods, Deployments and Services, created fast before anything is measured.

Objects look like what teams run, so cache sizes mean something: Pods have
two containers with env, resources, probes and mounts, a few labels and
annotations (about 2.5 KB of JSON each with managedFields). They name a
scheduler that does not exist, so they stay Pending without a status: on
this 2-core machine kwok makes about 15 Pods a second Running, which would
take ten minutes for 10,000. Deployments have ``replicas: 0`` (their Pods
would otherwise double the Pod count) and Services are headless (the test
control plane's ClusterIP range has 254 addresses) with selectors that
match no Pod.

The first ``churn_pods`` Pods carry ``bench=1``: those are the Pods the
churn patches. Everything is spread over ``namespaces`` namespaces.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from bench.e2e.api import (
    METADATA_LIST,
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


Creation = tuple[str, Body]  # (collection path, body)


def creations(size: FleetSize) -> Iterator[Creation]:
    for i in range(size.pods):
        yield pod_path(namespace_of(i, size)), pod_body(i, size)
    for i in range(size.deployments):
        yield deployment_path(namespace_of(i, size)), deployment_body(i)
    for i in range(size.services):
        yield service_path(namespace_of(i, size)), service_body(i)


def create_namespaces(connection: ApiConnection, size: FleetSize) -> None:
    for i in range(size.namespaces):
        body = {"metadata": {"name": namespace_of(i, size), "labels": {"bench": "e2e"}}}
        connection.call("POST", "/api/v1/namespaces", body)


def create_all(
    endpoint: Endpoint, items: Sequence[Creation], threads: int = 16
) -> tuple[int, float]:
    """POST every item from ``threads`` connections; (created, seconds). Raises on a failure."""
    started = time.monotonic()
    local = threading.local()

    def create(item: Creation) -> None:
        if not hasattr(local, "connection"):
            local.connection = ApiConnection(endpoint)
        local.connection.call("POST", item[0], item[1])

    _run_all(create, items, threads)
    return len(items), time.monotonic() - started


def _run_all(action: Callable[[Creation], None], items: Sequence[Creation], threads: int) -> None:
    with ThreadPoolExecutor(threads) as pool:
        for _ in pool.map(action, items):
            pass


def pods_not_running(connection: ApiConnection) -> int:
    """Pods kwok has not made Running yet (metadata-only pages, so polling stays cheap)."""
    count, token = 0, ""
    while True:
        path = "/api/v1/pods?fieldSelector=status.phase%21%3DRunning&limit=2000" + token
        document = json.loads(connection.call("GET", path, accept=METADATA_LIST))
        count += len(document.get("items") or [])
        next_token = document.get("metadata", {}).get("continue")
        if not next_token:
            return count
        token = "&continue=" + urllib.parse.quote(next_token)
