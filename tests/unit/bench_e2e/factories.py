"""Trial results made up for tests of the sustain search and the report."""

from __future__ import annotations

from bench.e2e.background import BackgroundCounts
from bench.e2e.cpu import CpuShares
from bench.e2e.scoring import Arrival, Send, score
from bench.e2e.trials import TrialResult


def trial(
    rate: float | None,
    *,
    achieved: float,
    lost: int = 0,
    latency: float = 0.05,
    subject_cpu: float = 1.0,
    seconds: float = 10.0,
) -> TrialResult:
    """A trial of ``seconds`` that wrote ``achieved`` changes a second, each told after
    ``latency`` seconds but the last ``lost``; the subject used ``subject_cpu`` CPU seconds."""
    count = int(achieved * seconds)
    sends: list[Send] = [(i, 1, float(i), float(i) + 0.01, 200) for i in range(count)]
    arrivals: list[Arrival] = [(i, 1, float(i) + latency) for i in range(count - lost)]
    cpu = CpuShares(
        wall=seconds, machine=1.5 * seconds, subject=subject_cpu, control_plane=5.0, bench=1.0
    )
    return TrialResult(
        trial=1,
        target_rate=rate,
        seconds=seconds,
        score=score(sends, arrivals, seconds),
        drain=None,
        cpu=cpu,
        background=BackgroundCounts(created=3, deleted=3, rolled=2),
    )
