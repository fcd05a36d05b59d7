"""Watch what a real kubelet and the controllers write, and keep each object's status story.

``StatusRecorder`` watches Pods, Jobs, Deployments and Nodes through the real API and
keeps, per object, the latest body and each *change of its summary* (phase,
conditions, container states, restart count; heartbeats that change nothing are not
kept) with the time since the recorder started. Scenarios wait on its latest bodies;
``tests/data/kubelet/*.yaml`` are its stories, saved (``stories``).
"""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import urllib3
from kubernetes import client, config, watch

from tests.controlplane.cluster import ControlPlane

Body = dict[str, Any]
ObjectId = tuple[str, str, str]  # kind, namespace ("" for a Node), name
_DISRUPTION = "DisruptionTarget"


def _conditions(status: Body) -> list[str]:
    found = []
    for cond in status.get("conditions") or []:
        text = f"{cond['type']}={cond['status']}"
        text += f" ({cond['reason']})" if cond.get("reason") else ""
        # a disruption's message names its cause (e.g. the node's pressure)
        found.append(text + (f": {cond['message']}" if cond["type"] == _DISRUPTION else ""))
    return sorted(found)


def _container(status: Body) -> str:
    (kind, detail), *_ = (status.get("state") or {"unknown": {}}).items()
    text = f"{kind}:{(detail or {}).get('reason', '')}".rstrip(":")
    if kind == "terminated":
        text += f"({detail.get('exitCode')})"
    ready = "ready" if status.get("ready") else "not ready"
    return f"{text}, {ready}, restarts {status.get('restartCount', 0)}"


def summary(kind: str, body: Body) -> Body:
    """The fields of ``body`` a notifier decides on, in a short readable form."""
    status = body.get("status") or {}
    if kind == "Pod":
        containers = {c["name"]: _container(c) for c in status.get("containerStatuses") or []}
        # e.g. Evicted, with the kubelet's words for it
        told = {key: status[key] for key in ("reason", "message") if status.get(key)}
        return {
            "phase": status.get("phase", ""),
            **told,
            "conditions": _conditions(status),
            "containers": containers,
        }
    if kind == "Node":
        taints = sorted(t["key"] for t in (body.get("spec") or {}).get("taints") or [])
        ready = [c for c in _conditions(status) if c.startswith("Ready=")]
        return {"conditions": ready, "taints": taints}
    counts = (
        *("replicas", "readyReplicas", "availableReplicas", "unavailableReplicas"),
        *("active", "succeeded", "failed"),
    )
    return {
        "conditions": _conditions(status),
        **{name: status[name] for name in counts if status.get(name)},
    }


@dataclass(frozen=True)
class Change:
    seconds: float
    summary: Body


def _lister(api: client.ApiClient, kind: str) -> Callable[..., Any]:
    core, apps, batch = client.CoreV1Api(api), client.AppsV1Api(api), client.BatchV1Api(api)
    listers: dict[str, Callable[..., Any]] = {
        "Pod": core.list_pod_for_all_namespaces,
        "Node": core.list_node,
        "Job": batch.list_job_for_all_namespaces,
        "Deployment": apps.list_deployment_for_all_namespaces,
    }
    return listers[kind]


class StatusRecorder:
    KINDS = ("Pod", "Node", "Job", "Deployment")

    def __init__(self, plane: ControlPlane) -> None:
        self.api = config.new_client_from_config(config_file=str(plane.kubeconfig))  # type: ignore[no-untyped-call]
        self.started = time.monotonic()
        self.latest: dict[ObjectId, Body] = {}
        self.changes: dict[ObjectId, list[Change]] = defaultdict(list)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._synced: set[str] = set()
        self._threads = [
            threading.Thread(target=self._watch, args=(kind,), daemon=True, name=f"rec-{kind}")
            for kind in self.KINDS
        ]

    def start(self) -> StatusRecorder:
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(10)

    def _list(self, lister: Callable[..., Any]) -> tuple[list[Body], str]:
        listed = json.loads(lister(_preload_content=False).data)
        return listed["items"], listed["metadata"]["resourceVersion"]

    def _events(self, kind: str) -> Iterator[Body]:
        """Each body of ``kind`` listed, then each one the watch delivers (listed again after
        a 410 or an error)."""
        lister = _lister(self.api, kind)
        version = ""
        while not self._stop.is_set():
            try:
                if not version:
                    items, version = self._list(lister)
                    yield from items
                    self._synced.add(kind)
                stream = watch.Watch().stream  # type: ignore[no-untyped-call]
                events = stream(lister, resource_version=version, timeout_seconds=2)  # type: ignore[no-untyped-call]
                for event in events:
                    if event["type"] == "ERROR":  # 410 Gone: list again
                        version = ""
                        break
                    body: Body = event["raw_object"]
                    version = body["metadata"].get("resourceVersion", version)
                    yield body
            except (OSError, ValueError, client.ApiException, urllib3.exceptions.HTTPError):
                version = ""
                time.sleep(0.5)  # the API server restarting; list and watch again

    def wait_synced(self, timeout: float = 30) -> None:
        """Until each kind was listed once: every change after this call is recorded."""
        deadline = time.monotonic() + timeout
        while len(self._synced) < len(self.KINDS):
            if time.monotonic() > deadline:
                raise TimeoutError(f"recorder listed only {sorted(self._synced)}")
            time.sleep(0.05)

    def _watch(self, kind: str) -> None:
        for body in self._events(kind):
            meta = body["metadata"]
            key = (kind, meta.get("namespace", ""), meta["name"])
            brief = summary(kind, body)
            with self._lock:
                self.latest[key] = body
                story = self.changes[key]
                if not story or story[-1].summary != brief:
                    story.append(Change(round(time.monotonic() - self.started, 1), brief))

    def get(self, kind: str, namespace: str, name: str) -> Body | None:
        with self._lock:
            return self.latest.get((kind, namespace, name))

    def objects(self, kind: str, namespace: str) -> list[Body]:
        with self._lock:
            return [b for (k, ns, _), b in self.latest.items() if k == kind and ns == namespace]

    def story(self, kind: str, namespace: str, name: str) -> list[Change]:
        with self._lock:
            return list(self.changes.get((kind, namespace, name), []))

    def stories(self, namespace: str) -> dict[str, list[Change]]:
        """``Kind/name`` -> its changes, for every object recorded in ``namespace``."""
        with self._lock:
            return {
                f"{kind}/{name}": list(story)
                for (kind, ns, name), story in self.changes.items()
                if ns == namespace
            }
