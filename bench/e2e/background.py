"""Background churn during every trial: Pods that fail through kwok, Deployments that come,
roll and go.

Not scored, but both subjects see the same of it: it makes the watch
streams look like a cluster's rather than a stream of label patches, and
gives each subject failures to report.

- **failing Pods**: ``pods_per_second`` Pods created on a kwok node with
  label ``kube-notifier.test/stage`` cycling ``fail``, ``crashloop`` and
  ``oomkill`` (tests/controlplane/stages: Running, then Failed /
  CrashLoopBackOff / OOMKilled), each deleted ``lifetime`` seconds later.
- **rollouts**: ``rollouts_per_second`` image changes on the first
  ``rolled`` Deployments of the fleet (``replicas: 0``: the controller
  makes a new ReplicaSet and no Pods).
- **Deployments**: ``deployments_per_second`` created, each deleted
  ``lifetime`` seconds later.

What is still there when the trial ends is deleted then. One thread keeps
the schedule; the requests go through a few threads with their own
connections, so a slow API server delays the background churn rather than
thinning it.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from bench.e2e.api import ApiConnection, Endpoint, deployment_path, pod_path
from bench.e2e.fleet import APPS, FleetSize, deployment_body, namespace_of, node_name, pod_body

STAGE_LABEL = "kube-notifier.test/stage"
STAGES = ("fail", "crashloop", "oomkill")
STRATEGIC_MERGE = "application/strategic-merge-patch+json"
THREADS = 4


@dataclass(frozen=True)
class BackgroundPlan:
    pods_per_second: float = 4.0
    rollouts_per_second: float = 2.0
    deployments_per_second: float = 0.5
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


class Background:
    """Started before a trial's churn, stopped after it: ``with Background(...) as counts:``."""

    def __init__(self, endpoint: Endpoint, size: FleetSize, plan: BackgroundPlan, trial: int):
        self._endpoint = endpoint
        self._size = size
        self._plan = plan
        self._trial = trial
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._live: deque[tuple[float, str]] = deque()  # (created at, object path)
        self._local = threading.local()
        self._pool = ThreadPoolExecutor(THREADS, thread_name_prefix="background")
        self.counts = BackgroundCounts()
        self._thread = threading.Thread(target=self._run, name="background-churn", daemon=True)

    def __enter__(self) -> BackgroundCounts:
        self._thread.start()
        return self.counts

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(30)
        with self._lock:
            left, self._live = list(self._live), deque()
        for _created, path in left:
            self._pool.submit(self._delete, path)
        self._pool.shutdown(wait=True)

    def _run(self) -> None:
        started = time.monotonic()
        for offset, action, number in _schedule(self._plan):
            if self._stop.wait(max(0.0, started + offset - time.monotonic())):
                return
            self._pool.submit(self._act, action, number)
            self._expire()

    def _act(self, action: str, number: int) -> None:
        if action == "pod":
            self._create_pod(number)
        elif action == "deployment":
            self._create_deployment(number)
        else:
            self._roll(number)

    def _create_pod(self, number: int) -> None:
        namespace = namespace_of(number, self._size)
        name = f"bg-{self._trial}-{number:06d}"
        body = pod_body(self._size.pods + number, self._size)  # past the churn Pods
        body["metadata"]["name"] = name
        body["metadata"]["labels"][STAGE_LABEL] = STAGES[number % len(STAGES)]
        body["spec"].pop("schedulerName")
        body["spec"]["nodeName"] = node_name(number % self._size.nodes)
        self._create(pod_path(namespace), name, body)

    def _create_deployment(self, number: int) -> None:
        namespace = namespace_of(number, self._size)
        name = f"bg-{self._trial}-{number:06d}"
        body = deployment_body(self._size.deployments + number)
        body["metadata"]["name"] = name
        self._create(deployment_path(namespace), name, body)

    def _create(self, collection: str, name: str, body: object) -> None:
        if self._request("POST", collection, body):
            with self._lock:
                self.counts.created += 1
                self._live.append((time.monotonic(), f"{collection}/{name}"))

    def _roll(self, number: int) -> None:
        index = number % min(self._plan.rolled, self._size.deployments)
        app = APPS[index % len(APPS)]
        image = f"registry.example.com/{app}-{index:04d}:1.{self._trial}.{number}"
        body = {"spec": {"template": {"spec": {"containers": [{"name": app, "image": image}]}}}}
        path = deployment_path(namespace_of(index, self._size), f"deploy-{index:04d}")
        if self._request("PATCH", path, body, STRATEGIC_MERGE):
            with self._lock:
                self.counts.rolled += 1

    def _expire(self) -> None:
        deadline = time.monotonic() - self._plan.lifetime
        with self._lock:
            expired = []
            while self._live and self._live[0][0] < deadline:
                expired.append(self._live.popleft()[1])
        for path in expired:
            self._pool.submit(self._delete, path)

    def _delete(self, path: str) -> None:
        if self._request("DELETE", path, {"gracePeriodSeconds": 0}):
            with self._lock:
                self.counts.deleted += 1

    def _request(
        self, method: str, path: str, body: object, content_type: str = "application/json"
    ) -> bool:
        if not hasattr(self._local, "connection"):
            self._local.connection = ApiConnection(self._endpoint)
        try:
            status, _ = self._local.connection.request(method, path, body, content_type)
        except OSError:
            status = 0
        if 200 <= status < 300:
            return True
        with self._lock:
            self.counts.failed_requests += 1
        return False


def _schedule(plan: BackgroundPlan, horizon: float = 3600.0) -> list[tuple[float, str, int]]:
    """(seconds from start, action, its number) for every stream in time order, to ``horizon``."""
    streams = (
        ("pod", plan.pods_per_second),
        ("roll", plan.rollouts_per_second),
        ("deployment", plan.deployments_per_second),
    )
    events: list[tuple[float, str, int]] = []
    for action, rate in streams:
        if rate > 0:
            events.extend((n / rate, action, n) for n in range(int(horizon * rate)))
    events.sort()
    return events
