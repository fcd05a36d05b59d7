"""Everything measured per subject, the subjects taking turns: ready time, steps, sustain.

Each trial gets a fresh process of its subject, started with the fleet in
place: start, wait for ready (timed), wait until its work after ready is
done (its CPU use below 5% of a core over a second), run the trial, read
its peak RSS, stop it. So no trial inherits another's backlog, and the
subjects alternate trial by trial (kube-notifier's 50/s step,
kubewatch's, the baseline's, kube-notifier's 200/s step, ...): on a
machine shared with other work, load that comes and goes falls on all
alike.

The first start is a first start for every subject ("ready after
start"); it also gives the idle CPU and the CPU of the first 30 s
(``starts.FirstSeconds``: the trial waits for that window to close).
Later starts of kube-notifier reuse its state file, as a user's restarts
do ("ready after restart with saved state": the median of those starts);
kubewatch and the baseline keep no state, so theirs are plain restarts.
Before each start's first trial the bench waits for the catch-up a
restart owes (``starts.wait_for_catch_up``) and records what each start
told (``starts.StartTold``): nothing of it is scored in the trial.

Steps: 20, 50, 100, 200 and 1,000 changes per second. Then the sustain search, per
subject: flat out first (unless a step already lost changes), then the
ladder's fixed rates below the lowest achieved rate that lost, highest
first, until a trial of ``sustain_seconds`` loses nothing. The highest
rate sustained is that trial's achieved write rate. Trials that would end
past the run's deadline are skipped and listed.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.e2e.churn import START_DELAY
from bench.e2e.receiver import Receiver
from bench.e2e.settings import Settings
from bench.e2e.starts import FirstSeconds, StartTold, wait_for_catch_up
from bench.e2e.subjects import Subject
from bench.e2e.trials import TrialResult, Trials

IDLE_SECONDS = 5.0  # after the first start: what the subject costs doing nothing
SETTLED_CPU_FRACTION = 0.05  # of one core, over a second after ready: initial work done
SETTLE_CAP = 60.0
Rate = float | None  # changes per second; None: flat out


@dataclass
class SubjectResult:
    name: str
    ready_seconds: list[float] = field(default_factory=list)  # one per start
    settle_seconds: list[float] = field(default_factory=list)  # ready -> quiet, per start
    idle_cpu_fraction: float = 0.0  # of one core, with the fleet cached and nothing changing
    rss_after_ready: int = 0  # first start
    peak_rss: int = 0  # the highest VmHWM of all its processes
    steps: list[TrialResult] = field(default_factory=list)
    sustain: list[TrialResult] = field(default_factory=list)
    sustain_skipped: list[str] = field(default_factory=list)
    keeps_state: bool = False  # later starts read the first one's state file
    start_cpu_seconds: float | None = None  # process tree, first start_window s of the first start
    start_window: float = 30.0
    told_on_start: list[StartTold] = field(default_factory=list)  # one per start

    @property
    def first_ready(self) -> float:
        return self.ready_seconds[0] if self.ready_seconds else float("nan")

    @property
    def restart_ready(self) -> float | None:
        """Median ready of the starts after the first (with saved state if it keeps any)."""
        return statistics.median(self.ready_seconds[1:]) if len(self.ready_seconds) > 1 else None

    @property
    def unexpected_on_start(self) -> int:
        return sum(told.unexpected for told in self.told_on_start)

    @property
    def highest_sustained(self) -> float | None:
        rates = [t.score.write_rate for t in self.sustain if t.sustained]
        return max(rates) if rates else None

    @property
    def kept_up_flat_out(self) -> bool:
        """Lost nothing with the churn as fast as the control plane took it: the rate it
        sustained is then the control plane's, not its own limit."""
        return any(t.sustained and t.target_rate is None for t in self.sustain)

    def step(self, rate: float) -> TrialResult | None:
        return next((t for t in self.steps if t.target_rate == rate), None)

    def as_json(self) -> dict[str, Any]:
        return {
            "ready_seconds_first": self.first_ready,
            "ready_seconds_median": statistics.median(self.ready_seconds or [float("nan")]),
            "ready_seconds_all": self.ready_seconds,
            "restarts_keep_state": self.keeps_state,
            "ready_seconds_after_restart_median": self.restart_ready,
            "start_cpu_seconds": self.start_cpu_seconds,
            "start_window_seconds": self.start_window,
            "told_on_start": [told.as_json() for told in self.told_on_start],
            "unexpected_on_start": self.unexpected_on_start,
            "settle_seconds_after_ready": self.settle_seconds,
            "idle_cpu_fraction": self.idle_cpu_fraction,
            "rss_after_ready_bytes": self.rss_after_ready,
            "peak_rss_bytes": self.peak_rss,
            "steps": [t.as_json() for t in self.steps],
            "sustain": [t.as_json() for t in self.sustain],
            "sustain_skipped": self.sustain_skipped,
            "highest_sustained_rate": self.highest_sustained,
            "kept_up_flat_out": self.kept_up_flat_out,
        }


class SubjectRun:
    """One subject across its trials: a fresh process per trial, results accumulated."""

    def __init__(self, subject: Subject, settings: Settings) -> None:
        self.subject = subject
        self.settings = settings
        self.result = SubjectResult(
            subject.name, keeps_state=subject.keeps_state, start_window=settings.start_window
        )
        self.candidates: list[Rate] = []
        self.done = False
        self._changes_at_stop: Counter[int] = Counter()

    def trial(self, trials: Trials, rate: Rate, seconds: float) -> TrialResult:
        restart = self.subject.keeps_state and bool(self.result.ready_seconds)
        self.start(
            trials.receiver, trials.changed_since(self._changes_at_stop) if restart else set()
        )
        try:
            trial = trials.run(rate, seconds, self.subject)
            self.result.peak_rss = max(self.result.peak_rss, self.subject.peak_rss_bytes())
        finally:
            self.subject.stop()
            self._changes_at_stop = Counter(trials.changes)
        say(_line(self.subject.name, trial))
        return trial

    def plan_sustain(self) -> None:
        """Flat out unless a step lost changes, then fixed rates below the lowest that lost."""
        failed = [t.score.write_rate for t in self.result.steps if not t.sustained]
        ceiling = min(failed, default=float("inf"))
        fixed: list[Rate] = [r for r in self.settings.sustain_ladder if r < ceiling]
        candidates = ([None] if not failed else []) + fixed
        self.candidates = candidates[: self.settings.max_sustain_trials]

    def start(self, receiver: Receiver, expected: set[int]) -> None:
        """Starts the subject, ready and settled for a trial; ``expected``: the churn Pods a
        restart with saved state is to tell (changed while it was down)."""
        first = not self.result.ready_seconds
        saved_state = self.subject.keeps_state and not first
        receiver.take()  # what came after the previous trial: not this start's
        window = self._launch(first)
        if expected:
            wait_for_catch_up(receiver, expected, self.settings.quiet, self.settings.drain_cap)
        told = StartTold.of(receiver.take(), expected, saved_state=saved_state)
        self.result.told_on_start.append(told)
        say(
            f"{self.subject.name}: ready in {self.result.ready_seconds[-1]:.2f} s"
            f"{' with saved state' if saved_state else ''}, settled "
            f"{self.result.settle_seconds[-1]:.1f} s later{_start_notes(window, told)}"
        )

    def _launch(self, first: bool) -> FirstSeconds | None:
        """Starts the subject and waits until it is ready and settled (on the first start,
        also for its idle CPU and the end of its start window)."""
        self.subject.start()
        window = FirstSeconds(self.subject, self.settings.start_window) if first else None
        try:
            self.result.ready_seconds.append(self.subject.wait_ready(self.settings.ready_timeout))
        except RuntimeError:
            if window is not None:
                window.cancel()
            raise
        if first:
            self.result.rss_after_ready = self.subject.rss_bytes()
        self.result.settle_seconds.append(self._settle())
        if window is not None:
            self.result.idle_cpu_fraction = self._cpu_fraction(IDLE_SECONDS)
            self.result.start_cpu_seconds = window.result()
        return window

    def _settle(self) -> float:
        """Seconds until the work it does after ready (on the initial list) is done."""
        started = time.monotonic()
        while time.monotonic() - started < SETTLE_CAP:
            if self._cpu_fraction(1.0) < SETTLED_CPU_FRACTION:
                break
        return time.monotonic() - started

    def _cpu_fraction(self, seconds: float) -> float:
        before = self.subject.cpu_seconds()
        time.sleep(seconds)
        return (self.subject.cpu_seconds() - before) / seconds


def compare(
    runs: Sequence[SubjectRun], trials: Trials, settings: Settings, deadline: float
) -> None:
    """The steps, then the sustain search, the subjects taking turns."""
    for step_rate in settings.step_rates:
        for run in runs:
            run.result.steps.append(run.trial(trials, step_rate, settings.step_seconds))
    for run in runs:
        run.plan_sustain()
    for round_ in range(settings.max_sustain_trials):
        for run in runs:
            if not run.done and round_ < len(run.candidates):
                _sustain_trial(run, run.candidates[round_], trials, deadline)


def _sustain_trial(run: SubjectRun, rate: Rate, trials: Trials, deadline: float) -> None:
    settings = run.settings
    result = run.result
    start = max(r + s for r, s in zip(result.ready_seconds, result.settle_seconds, strict=True))
    cost = start + settings.sustain_seconds + settings.drain_cap + START_DELAY
    if time.monotonic() + cost > deadline:
        run.result.sustain_skipped.append(_rate_text(rate))
        return
    trial = run.trial(trials, rate, settings.sustain_seconds)
    run.result.sustain.append(trial)
    run.done = trial.sustained


def _start_notes(window: FirstSeconds | None, told: StartTold) -> str:
    notes = []
    if window is not None and window.cpu_seconds is not None:
        notes.append(f"{window.cpu_seconds:.2f} CPU s in its first {window.window:.0f} s")
    if told.saved_state:
        notes.append(f"told {told.told_pods} of {told.expected_pods} churn Pods changed meanwhile")
    notes.append(f"{told.unexpected} unexpected, {sum(told.others.values())} other notifications")
    return "; " + ", ".join(notes)


def _rate_text(rate: Rate) -> str:
    return "flat out" if rate is None else f"{rate:.0f}/s"


def _line(name: str, trial: TrialResult) -> str:
    s = trial.score
    drain = f", drain {trial.drain.seconds:.1f}s ({trial.drain.ended_by})" if trial.drain else ""
    cpu = f", {trial.cpu_per_1000:.2f} CPU s/1k" if trial.cpu_per_1000 is not None else ""
    return (
        f"{name}: trial {trial.trial} {_rate_text(trial.target_rate)} x {trial.seconds:.0f}s: "
        f"wrote {s.write_rate:.0f}/s, told {s.told_exactly}+{s.coalesced} coalesced, "
        f"lost {s.lost}, p50/p99 {s.latency.p50:.0f}/{s.latency.p99:.0f} ms "
        f"(added {s.added.p50:.0f}/{s.added.p99:.0f}){cpu}{drain}"
    )


def say(text: str) -> None:
    print(f"[e2e {time.strftime('%H:%M:%S')}] {text}", flush=True)
