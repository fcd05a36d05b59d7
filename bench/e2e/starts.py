"""What a subject's start costs and tells before its first trial: CPU in its first 30 s, and the
notifications a restart sends for what changed while it was down.

**CPU in the first 30 s** (``FirstSeconds``): the user + system time of
the subject's process tree (``procstat.tree_cpu_seconds``: ``/proc/<pid>/
stat`` of the process and of every descendant, with their ended children)
read ``Settings.start_window`` (30 s; 5 in the smoke run) after launch, on a
thread of its own so that it is read on time whether the subject is still
starting or already idle.
It is the subject's own work only: the bench changes nothing in the
cluster before the first trial, which waits for the reading.

**Told on start** (``StartTold``): what the receiver got from launch until
the first trial. A subject that keeps state (kube-notifier, its state
file) is expected to tell, on a restart, each churn Pod whose state
differs from what its previous run saved: Pods with a change accepted
since that run stopped (``Trials.changed_since``), in the phase workload
those not back in the phase they were in. Any other churn notification,
or a second one for a Pod, is *unexpected*: a restart telling the cached
fleet again, or a first start telling its initial list. Notifications of
other objects (the background churn's rollouts, by rule) are listed, not
judged. Subjects without state (kubewatch, the baseline) are expected to
tell nothing.
"""

from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from bench.e2e import procstat
from bench.e2e.receiver import Received, Receiver
from bench.e2e.subjects import Subject

START_WINDOW = 30.0  # seconds after launch: "CPU in the first 30 s"
POLL = 0.2


class FirstSeconds:
    """The subject's process-tree CPU ``window`` seconds after its launch (None if it was gone
    by then), read on a thread started right after the launch."""

    def __init__(self, subject: Subject, window: float = START_WINDOW) -> None:
        self.window = window
        self.cpu_seconds: float | None = None
        self._pid = subject.pid
        self._at = subject.started_at + window
        self._cancelled = threading.Event()
        self._thread = threading.Thread(
            target=self._read, name=f"first-{window:.0f}s-cpu", daemon=True
        )
        self._thread.start()

    def _read(self) -> None:
        if self._cancelled.wait(max(0.0, self._at - time.monotonic())):
            return
        try:
            self.cpu_seconds = procstat.tree_cpu_seconds(self._pid)
        except (OSError, ValueError):
            self.cpu_seconds = None

    def result(self) -> float | None:
        """Waits for the end of the window; the reading."""
        self._thread.join()
        return self.cpu_seconds

    def cancel(self) -> None:
        self._cancelled.set()
        self._thread.join()


@dataclass(frozen=True)
class StartTold:
    """The notifications one start sent before its first trial."""

    saved_state: bool  # started on the state file of a previous run
    expected_pods: int  # churn Pods changed since that run: each to be told once
    told_pods: int  # churn Pods told
    unexpected: int  # churn notifications for Pods not changed since, or a Pod's second one
    missing: int  # expected churn Pods not told
    others: dict[str, int] = field(default_factory=dict)  # other objects', by rule

    @classmethod
    def of(cls, received: Received, expected: set[int], *, saved_state: bool) -> StartTold:
        pods = [pod for pod, _seq, _at in received.arrivals]
        pods += [pod for pod, _at in received.mentions]
        told = set(pods)
        return cls(
            saved_state=saved_state,
            expected_pods=len(expected),
            told_pods=len(told),
            unexpected=len(told - expected) + len(pods) - len(told),
            missing=len(expected - told),
            others=dict(received.others),
        )

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def told_pods(received: Received) -> set[int]:
    return {pod for pod, _seq, _at in received.arrivals} | {pod for pod, _at in received.mentions}


def wait_for_catch_up(receiver: Receiver, expected: set[int], quiet: float, cap: float) -> float:
    """Waits until every expected churn Pod has been told, or no churn notification came for
    ``quiet`` seconds, or ``cap`` passed; the seconds waited."""
    started = last_change = time.monotonic()
    seen = -1
    while True:
        received = receiver.peek()
        now = time.monotonic()
        if expected <= told_pods(received):
            return now - started
        count = len(received.arrivals) + len(received.mentions)
        if count != seen:
            seen, last_change = count, now
        if now - last_change >= quiet or now - started >= cap:
            return now - started
        time.sleep(POLL)
