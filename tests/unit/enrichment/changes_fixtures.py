"""Objects as the API server answers them, for ``enrich: [changes]``: a Deployment's world."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

NOW = 1_800_000_000.0  # the wall clock the finder is given
NS = "shop"
POD_PATH = f"/api/v1/namespaces/{NS}/pods/web-1"
RS_PATH = f"/apis/apps/v1/namespaces/{NS}/replicasets/web-2"
RS_LIST = f"/apis/apps/v1/namespaces/{NS}/replicasets"
DEPLOY_PATH = f"/apis/apps/v1/namespaces/{NS}/deployments/web"
CM_PATH = f"/api/v1/namespaces/{NS}/configmaps/app-config"
SECRET_PATH = f"/api/v1/namespaces/{NS}/secrets/db"
NODE_PATH = "/api/v1/nodes/node-a"
EVENTS_PATH = f"/api/v1/namespaces/{NS}/events"
PODS_PATH = f"/api/v1/namespaces/{NS}/pods"


def stamp(seconds_before: float) -> str:
    return datetime.fromtimestamp(NOW - seconds_before, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def encoded(value: Any) -> bytes:
    return json.dumps(value).encode()


def container(image: str, **extra: Any) -> dict[str, Any]:
    secret = {"secretKeyRef": {"name": "db", "key": "pw"}}
    env = [{"name": "MODE", "value": "fast"}, {"name": "DB_PASSWORD", "valueFrom": secret}]
    return {"name": "web", "image": image, "env": env,
            "envFrom": [{"configMapRef": {"name": "app-config"}}], **extra}  # fmt: skip


def pod(
    waiting: str = "CrashLoopBackOff",
    *,
    uid: str = "uid-1",
    last: dict[str, Any] | None = None,
    limits: dict[str, str] | None = None,
    message: str = "",
    age: float = 3600,
) -> dict[str, Any]:
    resources = {"limits": limits} if limits else {}
    status = {"name": "web", "state": {"waiting": {"reason": waiting, "message": message}},
              "lastState": last or {}}  # fmt: skip
    return {
        "metadata": {"name": "web-1", "uid": uid, "creationTimestamp": stamp(age),
                     "ownerReferences": [
            {"kind": "ReplicaSet", "name": "web-2", "uid": "rs-2", "controller": True}]},
        "spec": {"nodeName": "node-a", "containers": [container("shop:2", resources=resources)]},
        "status": {"phase": "Running", "containerStatuses": [status]},
    }  # fmt: skip


def replica_set(name: str, uid: str, revision: int, image: str, age: float) -> dict[str, Any]:
    return {
        "metadata": {
            "name": name, "uid": uid, "creationTimestamp": stamp(age),
            "annotations": {"deployment.kubernetes.io/revision": str(revision)},
            "ownerReferences": [{"kind": "Deployment", "name": "web", "uid": "dep-1",
                                 "controller": True}],
        },
        "spec": {"selector": {"matchLabels": {"app": "web", "pod-template-hash": name}},
                 "template": {"spec": {"containers": [container(image)]}}},
    }  # fmt: skip


def deployment(manager: str = "kubectl-set", written: float = 40) -> dict[str, Any]:
    template: dict[str, Any] = {"f:spec": {"f:template": {"f:spec": {}}}}
    return {
        "metadata": {"name": "web", "uid": "dep-1", "managedFields": [
            {"manager": manager, "operation": "Update", "time": stamp(written),
             "fieldsV1": template},
            {"manager": "kube-controller-manager", "operation": "Update", "time": stamp(1),
             "subresource": "status", "fieldsV1": {"f:status": {}}},
        ]},
        "spec": {"selector": {"matchLabels": {"app": "web"}},
                 "template": {"spec": {"containers": [container("shop:2")]}}},
    }  # fmt: skip


def config_map(edits: list[tuple[str, float, list[str]]], created: float = 7200) -> dict[str, Any]:
    fields = [{"manager": manager, "operation": "Update", "time": stamp(age),
               "fieldsV1": {"f:data": {f"f:{key}": {} for key in keys}}}
              for manager, age, keys in edits]  # fmt: skip
    return {"metadata": {"name": "app-config", "creationTimestamp": stamp(created),
                         "managedFields": fields}}  # fmt: skip


def node(pressure: tuple[str, ...] = ()) -> dict[str, Any]:
    conditions = [{"type": kind, "status": "True"} for kind in pressure]
    conditions.append({"type": "Ready", "status": "True"})
    return {"metadata": {"name": "node-a"}, "status": {"conditions": conditions}}


def world(**replaced: Any) -> dict[str, bytes]:
    """A Deployment rolled from shop:1 to shop:2 42 s ago; nothing else changed lately."""
    objects: dict[str, Any] = {
        POD_PATH: pod(),
        RS_PATH: replica_set("web-2", "rs-2", 2, "shop:2", 42),
        RS_LIST: {"items": [replica_set("web-1", "rs-1", 1, "shop:1", 86400),
                            replica_set("web-2", "rs-2", 2, "shop:2", 42)]},
        DEPLOY_PATH: deployment(),
        CM_PATH: config_map([("kubectl-create", 7200, ["a", "b"])]),
        NODE_PATH: node(),
        EVENTS_PATH: {"items": []},
        PODS_PATH: {"items": [pod(), pod(uid="uid-2"), pod(uid="uid-3"),
                              pod("ContainerCreating", uid="uid-4")]},
    }  # fmt: skip
    objects.update(replaced)
    return {path: encoded(value) for path, value in objects.items()}
