"""Everything measured for one subject: ready time, latency steps, the sustain search, CPU, memory.

Order: start and wait for ready (the fleet is already there), then the
latency steps (50, 200, 1,000 changes per second), then the sustain
search: flat out first (unless a step already lost changes), then the
ladder's fixed rates below the lowest rate that lost, highest first,
until one trial of ``sustain_seconds`` loses nothing. The highest rate
sustained is that trial's achieved write rate.

A subject still busy when a drain hits its cap (a backlog it would carry
into the next trial) or one that died is restarted before the next trial
and the restart recorded; its peak RSS is read before every stop.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from bench.e2e.settings import Settings
from bench.e2e.subjects import Subject
from bench.e2e.trials import TrialResult, Trials

BUSY_CPU_FRACTION = 0.3  # of one core, over a second: still working through a backlog
IDLE_SECONDS = 5.0  # after settling, before the first trial: what the subject costs doing nothing
SETTLED_CPU_FRACTION = 0.05  # below this over a second after ready: initial work done
SETTLE_CAP = 60.0


@dataclass
class SubjectResult:
    name: str
    ready_seconds: float
    rss_after_ready: int
    settle_seconds: float = 0.0  # from ready until its CPU use fell to near nothing
    idle_cpu_fraction: float = 0.0  # of one core, with the fleet cached and nothing changing
    steps: list[TrialResult] = field(default_factory=list)
    sustain: list[TrialResult] = field(default_factory=list)
    sustain_skipped: list[str] = field(default_factory=list)
    restarts: list[dict[str, Any]] = field(default_factory=list)
    peak_rss: int = 0

    @property
    def highest_sustained(self) -> float | None:
        rates = [t.score.write_rate for t in self.sustain if t.sustained]
        return max(rates) if rates else None

    def step(self, rate: float) -> TrialResult | None:
        return next((t for t in self.steps if t.target_rate == rate), None)

    def as_json(self) -> dict[str, Any]:
        return {
            "ready_seconds": self.ready_seconds,
            "rss_after_ready_bytes": self.rss_after_ready,
            "settle_seconds_after_ready": self.settle_seconds,
            "idle_cpu_fraction": self.idle_cpu_fraction,
            "peak_rss_bytes": self.peak_rss,
            "steps": [t.as_json() for t in self.steps],
            "sustain": [t.as_json() for t in self.sustain],
            "sustain_skipped": self.sustain_skipped,
            "highest_sustained_rate": self.highest_sustained,
            "restarts": self.restarts,
        }


class SubjectRun:
    def __init__(self, subject: Subject, trials: Trials, settings: Settings, deadline: float):
        self.subject = subject
        self.trials = trials
        self.settings = settings
        self.deadline = deadline

    def measure(self) -> SubjectResult:
        self.subject.start()
        ready = self.subject.wait_ready(self.settings.ready_timeout)
        result = SubjectResult(self.subject.name, ready, self.subject.rss_bytes())
        say(f"{self.subject.name}: ready in {ready:.2f} s")
        result.settle_seconds = self._settle()
        result.idle_cpu_fraction = self._cpu_fraction(IDLE_SECONDS)
        say(
            f"{self.subject.name}: settled {result.settle_seconds:.1f} s after ready, "
            f"then idle at {result.idle_cpu_fraction:.1%} of a core"
        )
        try:
            for rate in self.settings.step_rates:
                result.steps.append(self._trial(rate, self.settings.step_seconds, result))
            self._sustain_search(result)
        finally:
            self._note_peak(result)
        return result

    def _trial(self, rate: float | None, seconds: float, result: SubjectResult) -> TrialResult:
        trial = self.trials.run(rate, seconds, self.subject)
        say(_line(self.subject.name, trial))
        if trial.drain is not None and trial.drain.ended_by == "cap" and self._busy():
            self._restart(result, f"backlog after trial {trial.trial}")
        elif not self.subject.alive():
            self._restart(result, f"exited during trial {trial.trial}")
        return trial

    def _sustain_search(self, result: SubjectResult) -> None:
        for rate in self._candidates(result)[: self.settings.max_sustain_trials]:
            if time.monotonic() + self._trial_cost() > self.deadline:
                result.sustain_skipped.append(_rate_text(rate))
                continue
            trial = self._trial(rate, self.settings.sustain_seconds, result)
            result.sustain.append(trial)
            if trial.sustained:
                return

    def _candidates(self, result: SubjectResult) -> list[float | None]:
        failed = [t.score.write_rate for t in result.steps if not t.sustained]
        ceiling = min(failed, default=float("inf"))
        fixed: list[float | None] = [r for r in self.settings.sustain_ladder if r < ceiling]
        return ([None] if not failed else []) + fixed

    def _trial_cost(self) -> float:
        return self.settings.sustain_seconds + self.settings.drain_cap + 5.0

    def _settle(self) -> float:
        """Seconds until the subject's work after ready (e.g. on the initial list) is done."""
        started = time.monotonic()
        while time.monotonic() - started < SETTLE_CAP:
            if self._cpu_fraction(1.0) < SETTLED_CPU_FRACTION:
                break
        return time.monotonic() - started

    def _cpu_fraction(self, seconds: float) -> float:
        before = self.subject.cpu_seconds()
        time.sleep(seconds)
        return (self.subject.cpu_seconds() - before) / seconds

    def _busy(self) -> bool:
        return self._cpu_fraction(1.0) > BUSY_CPU_FRACTION

    def _restart(self, result: SubjectResult, why: str) -> None:
        self._note_peak(result)
        self.subject.stop()
        self.subject.start()
        ready = self.subject.wait_ready(self.settings.ready_timeout)
        result.restarts.append({"why": why, "ready_seconds": ready})
        say(f"{self.subject.name}: restarted ({why}), ready in {ready:.2f} s")

    def _note_peak(self, result: SubjectResult) -> None:
        if self.subject.alive():
            result.peak_rss = max(result.peak_rss, self.subject.peak_rss_bytes())


def _rate_text(rate: float | None) -> str:
    return "flat out" if rate is None else f"{rate:.0f}/s"


def _line(name: str, trial: TrialResult) -> str:
    s = trial.score
    drain = f", drain {trial.drain.seconds:.1f}s ({trial.drain.ended_by})" if trial.drain else ""
    cpu = f", {trial.cpu_per_1000:.2f} CPU s/1k" if trial.cpu_per_1000 is not None else ""
    return (
        f"{name}: trial {trial.trial} {_rate_text(trial.target_rate)} x {trial.seconds:.0f}s: "
        f"wrote {s.write_rate:.0f}/s, told {s.told_exactly}+{s.coalesced} coalesced, "
        f"lost {s.lost}, p50/p99 {s.latency.p50:.0f}/{s.latency.p99:.0f} ms{cpu}{drain}"
    )


def say(text: str) -> None:
    print(f"[e2e {time.strftime('%H:%M:%S')}] {text}", flush=True)
