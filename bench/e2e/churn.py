"""The measured churn: label patches ``seq=<n>`` on the churn Pods, at a controlled rate.

Each patch is one change that must produce exactly one notification, so
loss is countable. Patch ``i`` of a trial goes to churn Pod ``i % pods``
with ``seq = trial * SEQ_STRIDE + i // pods``: seqs grow per Pod and never
repeat across trials, so a late notification is never taken for a new one.
With at least as many Pods as patches per second, each Pod is patched at
most about once a second.

In the phase workload (``phases``) a patch moves the Pod to its next phase
instead, with the seq in its condition's message.

The work is split over ``processes`` worker processes (spawned, each with
its own connections) of ``threads`` threads; process ``k`` sends patches
``i = k, k + P, k + 2P, ...``, patch ``i`` due at ``start + i / rate``
(``rate=None``: as fast as the API server answers). A late patch is sent
at once, so a control plane that cannot keep up shows as an achieved rate
below the target. Every send is recorded as a ``scoring.Send`` with
``time.monotonic()`` stamps, comparable with the receiver's on Linux.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

from bench.e2e import phases
from bench.e2e.api import MERGE_PATCH, ApiConnection, Endpoint, pod_path
from bench.e2e.fleet import SEQ_LABEL
from bench.e2e.scoring import Arrival, Send
from bench.e2e.watchfloor import watch_arrivals

SEQ_STRIDE = 1_000_000
START_DELAY = 1.0  # seconds for the worker processes to connect before the first patch


@dataclass(frozen=True)
class ChurnPlan:
    trial: int
    rate: float | None  # patches per second; None: flat out
    seconds: float
    pods: tuple[tuple[str, str], ...]  # (namespace, name) of the churn Pods
    processes: int = 2
    threads: int = 12
    phases: tuple[int, ...] = ()  # the phase workload: each Pod's phase at the start

    def seq(self, index: int) -> int:
        return self.trial * SEQ_STRIDE + index // len(self.pods)

    def due(self, start: float, index: int) -> float:
        return start if self.rate is None else start + index / self.rate

    def change(self, index: int) -> tuple[str, dict[str, Any]]:
        """Patch ``index``'s path and merge patch: the seq label, or (the phase workload)
        the Pod's next phase with the seq in its condition."""
        pod = index % len(self.pods)
        namespace, name = self.pods[pod]
        if self.phases:
            step = index // len(self.pods)
            return phases.change(namespace, name, self.phases[pod], step, self.seq(index))
        return pod_path(namespace, name), {
            "metadata": {"labels": {SEQ_LABEL: str(self.seq(index))}}
        }


def trial_of(seq: int) -> int:
    return seq // SEQ_STRIDE


class Churn:
    """Worker processes kept for all trials (spawning costs a second each time): the
    patching shares, and one more for the watch floor (``watchfloor``)."""

    def __init__(self, endpoint: Endpoint, processes: int) -> None:
        self._endpoint = endpoint
        self._processes = processes
        context = multiprocessing.get_context("spawn")
        self._pool = ProcessPoolExecutor(processes + 1, mp_context=context)
        # Workers are spawned on demand: make them all now, not during the first trial.
        for future in [self._pool.submit(time.sleep, 0.5) for _ in range(processes + 1)]:
            future.result()

    def run(self, plan: ChurnPlan) -> tuple[list[Send], list[Arrival]]:
        """Run one trial to its end: every send of every process, and the watch floor's
        arrivals (it returns once the churn's events stopped coming)."""
        if plan.processes != self._processes:
            raise ValueError(f"plan wants {plan.processes} processes, pool has {self._processes}")
        start = time.monotonic() + START_DELAY
        floor = self._pool.submit(watch_arrivals, self._endpoint, plan.pods, start + plan.seconds)
        futures = [
            self._pool.submit(patch_share, self._endpoint, plan, share, start)
            for share in range(plan.processes)
        ]
        sends = [send for future in futures for send in future.result()]
        return sends, floor.result()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def patch_share(endpoint: Endpoint, plan: ChurnPlan, share: int, start: float) -> list[Send]:
    """One process's part of a trial: ``plan.threads`` threads sending its patches."""
    share_plan = Share(plan, share, start)
    threads = [
        threading.Thread(target=share_plan.work, args=(ApiConnection(endpoint),), daemon=True)
        for _ in range(plan.threads)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return share_plan.sends


class Connection(Protocol):
    def connect(self) -> None: ...

    def request(
        self, method: str, path: str, body: Any = None, content_type: str = ...
    ) -> tuple[int, bytes]: ...

    def close(self) -> None: ...


class Share:
    """One process's patches of a plan: threads call ``work`` with their own connection."""

    def __init__(
        self,
        plan: ChurnPlan,
        share: int,
        start: float,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.plan = plan
        self.share = share
        self.start = start
        self.end = start + plan.seconds
        self.sends: list[Send] = []
        self._clock = clock
        self._sleep = sleep
        self._next = 0
        self._lock = threading.Lock()

    def work(self, connection: Connection) -> None:
        try:
            connection.connect()
            while (index := self._take()) is not None:
                self.sends.append(self._patch(connection, index))
        finally:
            connection.close()

    def _take(self) -> int | None:
        """The next global patch index of this share, once it is due; None past the end."""
        with self._lock:
            index = self.share + self._next * self.plan.processes
            self._next += 1
        due = self.plan.due(self.start, index)
        now = self._clock()
        if max(due, now) >= self.end:
            return None
        if due > now:
            self._sleep(due - now)
        return index

    def _patch(self, connection: Connection, index: int) -> Send:
        pod = index % len(self.plan.pods)
        seq = self.plan.seq(index)
        path, body = self.plan.change(index)
        sent = self._clock()
        try:
            status, _ = connection.request("PATCH", path, body, MERGE_PATCH)
        except OSError:
            status = 0  # no answer: the change may or may not have been made; expected by nobody
        return (pod, seq, sent, self._clock(), status)
