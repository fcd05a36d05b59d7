"""One trial: churn at a rate for a while (with the background churn), drain, score, account CPU.

A trial numbers its seqs (``churn.ChurnPlan``), so arrivals from earlier
trials are told apart and dropped. After the churn stops, the drain waits
until every accepted change has been told, or no churn notification came
for ``quiet`` seconds, or ``drain_cap`` passed: whatever has not arrived
by then is lost.

kubewatch's notifications name a Pod but no seq: they are matched to the
trial's changes (``scoring.match_mentions``); the receiver drops what came
before the trial, and each trial runs a fresh process, so none is an
earlier trial's. Mentions that match no change are counted in
``other_notifications``.

CPU (``cpu.CpuShares``) is accounted from the start of the churn to the
end of the drain; the subject's share per 1,000 accepted changes is the
figure the targets are about.

``changes`` counts the accepted changes per churn Pod over the whole run
(probe included), so a restart can be told which Pods changed while its
subject was down (``changed_since``).
"""

from __future__ import annotations

import os
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from bench.e2e import phases
from bench.e2e.api import ApiConnection, Endpoint
from bench.e2e.background import Background, BackgroundCounts
from bench.e2e.churn import Churn, ChurnPlan, trial_of
from bench.e2e.cpu import CpuMeter, CpuShares
from bench.e2e.receiver import Received, Receiver
from bench.e2e.scoring import Arrival, Score, Send, all_told, match_mentions, score
from bench.e2e.settings import Settings
from bench.e2e.subjects import Subject

POLL = 0.5
UNMATCHED = "kubewatch: update of a churn Pod matching no change"


@dataclass(frozen=True)
class Drain:
    seconds: float
    ended_by: str  # "all told", "quiet" or "cap"


@dataclass
class TrialResult:
    trial: int
    target_rate: float | None  # None: flat out
    seconds: float
    score: Score
    drain: Drain | None
    cpu: CpuShares
    background: BackgroundCounts
    other_notifications: dict[str, int] = field(default_factory=dict)
    load_average: tuple[float, float, float] = (0.0, 0.0, 0.0)
    has_subject: bool = True

    @property
    def cpu_per_1000(self) -> float | None:
        if not self.has_subject or not self.score.accepted:
            return None
        return self.cpu.subject / self.score.accepted * 1000

    @property
    def sustained(self) -> bool:
        return self.score.accepted > 0 and self.score.nothing_lost

    def as_json(self) -> dict[str, Any]:
        return {
            "trial": self.trial,
            "target_rate": self.target_rate,
            "seconds": self.seconds,
            "score": self.score.as_json(),
            "drain": asdict(self.drain) if self.drain else None,
            "cpu_seconds": self.cpu.as_json(),
            "cpu_seconds_per_1000_changes": self.cpu_per_1000,
            "background": asdict(self.background) | {"writes": self.background.writes},
            "other_notifications": self.other_notifications,
            "load_average": self.load_average,
        }


class Trials:
    """Runs trials against whichever subject is up; numbers them across the run."""

    def __init__(
        self,
        settings: Settings,
        *,
        endpoint: Endpoint,
        churn: Churn,
        receiver: Receiver,
        pods: tuple[tuple[str, str], ...],
        meter: CpuMeter,
        by_phase: bool = False,
    ) -> None:
        self.by_phase = by_phase
        self.meter = meter
        self.settings = settings
        self.endpoint = endpoint
        self.churn = churn
        self.receiver = receiver
        self.pods = pods
        self.changes: Counter[int] = Counter()  # accepted churn changes per Pod, all trials
        self._number = 0

    def run(self, rate: float | None, seconds: float, subject: Subject | None) -> TrialResult:
        self._number += 1
        trial = self._number
        self.receiver.take()  # stragglers of earlier trials
        plan = ChurnPlan(
            trial,
            rate,
            seconds,
            self.pods,
            self.settings.processes,
            self.settings.threads,
            self._phases(),
        )
        before = self.meter.snapshot(subject)
        background = Background(self.endpoint, self.settings.size, self.settings.background, trial)
        with background as counts:
            sends, watched = self.churn.run(plan)
        self.changes.update(pod for pod, *_rest, status in sends if 200 <= status < 300)
        drain = self._drain(sends, trial) if subject else None
        cpu = self.meter.since(before, subject)
        received = self.receiver.take()
        mine, unmatched = _arrivals_of(received, sends, trial)
        others = dict(received.others) | ({UNMATCHED: unmatched} if unmatched else {})
        return TrialResult(
            trial,
            rate,
            seconds,
            score(sends, mine, seconds, [w for w in watched if trial_of(w[1]) == trial]),
            drain,
            cpu,
            counts,
            others,
            os.getloadavg(),
            has_subject=subject is not None,
        )

    def changed_since(self, before: Counter[int]) -> set[int]:
        """Churn Pods whose state differs from when ``changes`` was ``before``: any accepted
        change of its seq label; in the phase workload, a phase not the one it was in."""
        return changed_pods(self.changes, before, len(phases.PHASES) if self.by_phase else 0)

    def _phases(self) -> tuple[int, ...]:
        """The phase workload: where each churn Pod's cycle stands (one list)."""
        if not self.by_phase:
            return ()
        connection = ApiConnection(self.endpoint)
        try:
            return phases.current_phases(connection, self.pods)
        finally:
            connection.close()

    def _drain(self, sends: list[Send], trial: int) -> Drain:
        started = last_change = time.monotonic()
        seen = -1
        while True:
            arrivals, _unmatched = _arrivals_of(self.receiver.peek(), sends, trial)
            now = time.monotonic()
            if all_told(sends, arrivals):
                return Drain(now - started, "all told")
            if len(arrivals) != seen:
                seen, last_change = len(arrivals), now
            if now - last_change >= self.settings.quiet:
                return Drain(now - started, "quiet")
            if now - started >= self.settings.drain_cap:
                return Drain(now - started, "cap")
            time.sleep(POLL)


def changed_pods(now: Counter[int], before: Counter[int], cycle: int = 0) -> set[int]:
    """Pods with more changes in ``now`` than in ``before``; with a ``cycle`` (changes that
    bring a Pod back where it was), only those whose count moved by no whole cycle."""
    moved = {pod: count - before[pod] for pod, count in now.items()}
    return {pod for pod, n in moved.items() if n and (not cycle or n % cycle)}


def _arrivals_of(received: Received, sends: list[Send], trial: int) -> tuple[list[Arrival], int]:
    """The trial's arrivals: those with a seq of this trial, and the mentions (kubewatch's)
    matched to its changes; and how many mentions matched none."""
    matched, unmatched = match_mentions(sends, received.mentions)
    return [a for a in received.arrivals if trial_of(a[1]) == trial] + matched, unmatched
