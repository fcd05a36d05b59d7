"""Background churn during every trial: Pods that fail through kwok, Deployments that roll.

Not scored, but both subjects see the same of it: it makes the watch
streams look like a cluster's rather than a stream of label patches, and
gives each subject failures to report.

- **failing Pods**: ``pods_per_second`` Pods created on a kwok node with
  label ``kube-notifier.test/stage`` cycling ``fail``, ``crashloop`` and
  ``oomkill`` (tests/controlplane/stages: Running, then Failed /
  CrashLoopBackOff / OOMKilled), each deleted ``lifetime`` seconds later;
  what is left is deleted when the trial ends.
- **rollouts**: ``rollouts_per_second`` image changes on the first
  ``rolled`` Deployments (``replicas: 0``: the controller makes a new
  ReplicaSet and no Pods).

Runs on one thread of the bench process; its requests are few.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass, field

from bench.e2e.api import ApiConnection, Endpoint, deployment_path, pod_path
from bench.e2e.fleet import APPS, FleetSize, namespace_of, node_name, pod_body

STAGE_LABEL = "kube-notifier.test/stage"
STAGES = ("fail", "crashloop", "oomkill")
STRATEGIC_MERGE = "application/strategic-merge-patch+json"


@dataclass(frozen=True)
class BackgroundPlan:
    pods_per_second: float = 4.0
    rollouts_per_second: float = 2.0
    lifetime: float = 8.0
    rolled: int = 50


@dataclass
class BackgroundCounts:
    created: int = 0
    deleted: int = 0
    rolled: int = 0
    failed_requests: int = 0

    @property
    def writes(self) -> int:
        return self.created + self.deleted + self.rolled


@dataclass
class _Live:
    pods: deque[tuple[float, str, str]] = field(default_factory=deque)  # (created at, ns, name)


class Background:
    """Started before a trial's churn, stopped after it: ``with Background(...) as counts:``."""

    def __init__(self, endpoint: Endpoint, size: FleetSize, plan: BackgroundPlan, trial: int):
        self._connection = ApiConnection(endpoint)
        self._size = size
        self._plan = plan
        self._trial = trial
        self._stop = threading.Event()
        self._live = _Live()
        self.counts = BackgroundCounts()
        self._thread = threading.Thread(target=self._run, name="background-churn", daemon=True)

    def __enter__(self) -> BackgroundCounts:
        self._thread.start()
        return self.counts

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(30)
        while self._live.pods:
            self._delete_oldest()
        self._connection.close()

    def _run(self) -> None:
        started = time.monotonic()
        for offset, action, number in _schedule(self._plan):
            if self._stop.wait(max(0.0, started + offset - time.monotonic())):
                return
            if action == "pod":
                self._create_pod(number)
            else:
                self._roll(number)
            self._expire()

    def _create_pod(self, number: int) -> None:
        namespace = namespace_of(number, self._size)
        name = f"bg-{self._trial}-{number:06d}"
        body = pod_body(self._size.pods + number, self._size)  # past the churn Pods
        body["metadata"]["name"] = name
        body["metadata"]["labels"][STAGE_LABEL] = STAGES[number % len(STAGES)]
        body["spec"].pop("schedulerName")
        body["spec"]["nodeName"] = node_name(number % self._size.nodes)
        if self._request("POST", pod_path(namespace), body):
            self.counts.created += 1
            self._live.pods.append((time.monotonic(), namespace, name))

    def _roll(self, number: int) -> None:
        index = number % min(self._plan.rolled, self._size.deployments)
        app = APPS[index % len(APPS)]
        image = f"registry.example.com/{app}-{index:04d}:1.{self._trial}.{number}"
        body = {"spec": {"template": {"spec": {"containers": [{"name": app, "image": image}]}}}}
        path = deployment_path(namespace_of(index, self._size), f"deploy-{index:04d}")
        if self._request("PATCH", path, body, STRATEGIC_MERGE):
            self.counts.rolled += 1

    def _expire(self) -> None:
        deadline = time.monotonic() - self._plan.lifetime
        while self._live.pods and self._live.pods[0][0] < deadline:
            self._delete_oldest()

    def _delete_oldest(self) -> None:
        _created, namespace, name = self._live.pods.popleft()
        body = {"gracePeriodSeconds": 0}
        if self._request("DELETE", pod_path(namespace, name), body):
            self.counts.deleted += 1

    def _request(
        self, method: str, path: str, body: object, content_type: str = "application/json"
    ) -> bool:
        try:
            status, _ = self._connection.request(method, path, body, content_type)
        except OSError:
            status = 0
        if 200 <= status < 300:
            return True
        self.counts.failed_requests += 1
        return False


def _schedule(plan: BackgroundPlan, horizon: float = 3600.0) -> list[tuple[float, str, int]]:
    """(seconds from start, action, its number) for both streams in time order, to ``horizon``."""
    events: list[tuple[float, str, int]] = []
    for action, rate in (("pod", plan.pods_per_second), ("roll", plan.rollouts_per_second)):
        if rate > 0:
            events.extend((n / rate, action, n) for n in range(int(horizon * rate)))
    events.sort()
    return events
