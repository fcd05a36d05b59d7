"""One trial: churn at a rate for a while (with the background churn), drain, score, account CPU.

A trial numbers its seqs (``churn.ChurnPlan``), so arrivals from earlier
trials are told apart and dropped. After the churn stops, the drain waits
until every accepted change has been told, or no churn notification came
for ``quiet`` seconds, or ``drain_cap`` passed: whatever has not arrived
by then is lost.

CPU is accounted from the start of the churn to the end of the drain: the
subject's user + system time (per 1,000 accepted changes: the figure the
targets are about), the control plane's, the bench's own (this process and
its children: churn workers, receiver) and, from /proc/stat, what the rest
of the machine used meanwhile (other people's work on a shared machine).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from bench.e2e import procstat
from bench.e2e.api import Endpoint
from bench.e2e.background import Background, BackgroundCounts
from bench.e2e.churn import Churn, ChurnPlan, trial_of
from bench.e2e.receiver import Receiver
from bench.e2e.scoring import Arrival, Score, Send, all_told, score
from bench.e2e.settings import Settings
from bench.e2e.subjects import Subject

POLL = 0.5


@dataclass(frozen=True)
class Drain:
    seconds: float
    ended_by: str  # "all told", "quiet" or "cap"


@dataclass(frozen=True)
class CpuShares:
    """CPU seconds used during one trial (churn and drain), by whom."""

    wall: float
    machine: float  # every core's busy time
    subject: float
    control_plane: float
    bench: float  # this process and its children but the subject

    @property
    def others(self) -> float:
        return max(0.0, self.machine - self.subject - self.control_plane - self.bench)

    def as_json(self) -> dict[str, float]:
        return asdict(self) | {"others": self.others}


class CpuMeter:
    """Snapshots of CPU time per party; ``since(snapshot)`` gives the shares in between."""

    def __init__(self, control_plane_pids: Callable[[], list[int]]) -> None:
        self._control_plane_pids = control_plane_pids

    def snapshot(self, subject: Subject | None) -> CpuShares:
        subjects = [subject.pid] if subject is not None and subject.alive() else []
        control_plane = self._control_plane_pids()
        # The control plane and the subject are this process's children too: not the bench.
        mine = [os.getpid(), *procstat.children(os.getpid())]
        bench = [pid for pid in mine if pid not in {*subjects, *control_plane}]
        return CpuShares(
            wall=time.monotonic(),
            machine=procstat.machine_busy_seconds(),
            subject=procstat.total_cpu_seconds(subjects),
            control_plane=procstat.total_cpu_seconds(control_plane),
            bench=procstat.total_cpu_seconds(bench),
        )

    def since(self, before: CpuShares, subject: Subject | None) -> CpuShares:
        after = self.snapshot(subject)
        return CpuShares(
            *(getattr(after, f) - getattr(before, f) for f in CpuShares.__dataclass_fields__)
        )


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
    ) -> None:
        self.meter = meter
        self.settings = settings
        self.endpoint = endpoint
        self.churn = churn
        self.receiver = receiver
        self.pods = pods
        self._number = 0

    def run(self, rate: float | None, seconds: float, subject: Subject | None) -> TrialResult:
        self._number += 1
        trial = self._number
        self.receiver.take()  # stragglers of earlier trials
        plan = ChurnPlan(
            trial, rate, seconds, self.pods, self.settings.processes, self.settings.threads
        )
        before = self.meter.snapshot(subject)
        background = Background(self.endpoint, self.settings.size, self.settings.background, trial)
        with background as counts:
            sends = self.churn.run(plan)
        drain = self._drain(sends, trial) if subject else None
        cpu = self.meter.since(before, subject)
        arrivals, others = self.receiver.take()
        mine = [a for a in arrivals if trial_of(a[1]) == trial]
        return TrialResult(
            trial,
            rate,
            seconds,
            score(sends, mine, seconds),
            drain,
            cpu,
            counts,
            dict(others),
            os.getloadavg(),
            has_subject=subject is not None,
        )

    def _drain(self, sends: list[Send], trial: int) -> Drain:
        started = last_change = time.monotonic()
        seen = -1
        while True:
            arrivals = self._arrivals_of(trial)
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

    def _arrivals_of(self, trial: int) -> list[Arrival]:
        return [a for a in self.receiver.peek() if trial_of(a[1]) == trial]
