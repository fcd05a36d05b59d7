"""The scale bench's phases, each a function returning its figures, run in order on one stand-in.

1. ``first_start``: kube-notifier with a fresh state file: seconds to
   /readyz 200, to "initial list acted on", steady RSS once quiet.
2. ``relist``: the stand-in ends every watch with 410 and forgets its
   history; peak RSS until the three kinds are listed again and quiet.
3. ``throughput``: bursts of changes from the stand-in; the receiver's
   count against the changes the rule matches; changes/s end to end.
4. ``restart``: SIGTERM, then a start with the same state file (every
   object saved): seconds to ready and to acted on, peak RSS (VmHWM).
5. ``namespaced``: a fresh start with ``watch.namespaces`` of the first
   ``--watch-namespaces`` namespaces: ready, steady RSS, threads.
6. ``baseline``: the ``kubernetes`` client's list + watch into dicts.

Every wait has a deadline (``Limits``); every process is registered in
``Bench.running`` as soon as it starts, so the caller stops it on error.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.e2e import procstat
from bench.e2e.subjects import Baseline, Subject
from bench.scale.notifier import ScaleNotifier, wait_until
from bench.scale.objects import namespace_name
from bench.scale.processes import StandInProcess, pinned
from bench.scale.receiver import SeqReceiver
from bench.scale.sampling import MIB, RssSampler
from bench.scale.scoring import score_changes

Figures = dict[str, Any]
QUIET_CPU_SHARE = 0.05  # under 5% of a core over a second: done with what it was doing
STEADY_SECONDS = 3.0


@dataclass(frozen=True)
class Plan:
    pods: int
    namespaces: int
    watch_namespaces: int
    rate: float
    bursts: int
    burst_seconds: float
    pause_seconds: float
    notifier_cpu: int | None
    helper_cpu: int | None


@dataclass(frozen=True)
class Limits:
    start: float  # launch -> ready, and ready -> acted on
    quiet: float
    drain: float  # the end of the bursts -> the last notification

    @classmethod
    def for_pods(cls, pods: int) -> Limits:
        return cls(start=60 + pods / 250, quiet=60 + pods / 2000, drain=120 + pods / 500)


@dataclass
class Bench:
    plan: Plan
    limits: Limits
    work_dir: Path
    standin: StandInProcess
    receiver: SeqReceiver
    kubeconfig: Path
    running: list[Subject] = field(default_factory=list)
    samplers: list[RssSampler] = field(default_factory=list)

    def notifier(self, name: str, state: Path, namespaces: list[str]) -> ScaleNotifier:
        subject = ScaleNotifier(
            name, self.work_dir, self.kubeconfig, self.receiver.url,
            state=state, namespaces=namespaces, cpu=self.plan.notifier_cpu,
        )  # fmt: skip
        self.launch(subject)
        return subject

    def launch(self, subject: Subject) -> RssSampler:
        self.running.append(subject)
        subject.start()
        sampler = RssSampler(subject.pid).start()
        self.samplers.append(sampler)
        return sampler

    def stop_all(self) -> None:
        for sampler in self.samplers:
            sampler.stop()
        for subject in self.running:
            subject.stop()


def wait_quiet(subject: Subject, timeout: float) -> float:
    """Wait until the process uses under 5% of a core over a second; the seconds it took."""

    def quiet() -> bool:
        before = subject.cpu_seconds()
        threading.Event().wait(1.0)
        return subject.cpu_seconds() - before < QUIET_CPU_SHARE

    return wait_until(quiet, timeout, f"{subject.name} quiet", period=0)


def steady_rss(subject: Subject, sampler: RssSampler, limits: Limits) -> float:
    wait_quiet(subject, limits.quiet)
    started = time.monotonic()
    threading.Event().wait(STEADY_SECONDS)
    return sampler.median_mib(started)


def _started(bench: Bench, subject: ScaleNotifier, sampler: RssSampler) -> Figures:
    ready = subject.wait_ready(bench.limits.start)
    acted = ready + wait_until(subject.acted_on, bench.limits.start, f"{subject.name} acted on")
    cpu = subject.cpu_seconds()
    steady = steady_rss(subject, sampler, bench.limits)
    return {
        "ready_s": ready,
        "acted_on_s": acted,
        "cpu_s_to_quiet": cpu,
        "steady_rss_mib": steady,
        "peak_rss_mib": procstat.peak_rss_bytes(subject.pid) / MIB,
        "threads": subject.threads(),
    }


def first_start(bench: Bench) -> tuple[ScaleNotifier, RssSampler, Figures]:
    subject = bench.notifier("fresh", bench.work_dir / "state.db", [])
    sampler = bench.samplers[-1]
    return subject, sampler, _started(bench, subject, sampler)


def relist(bench: Bench, subject: ScaleNotifier, sampler: RssSampler) -> Figures:
    lists = subject.metric("kube_notifier_lists_total")
    relists = subject.metric("kube_notifier_relists_total")
    started = time.monotonic()
    ended = bench.standin.control("gone", 30)["watches_ended"]
    listed = wait_until(
        lambda: subject.metric("kube_notifier_lists_total") >= lists + 3,
        bench.limits.start,
        "relist of the three kinds",
    )
    wait_quiet(subject, bench.limits.quiet)
    return {
        "watches_ended": ended,
        "relists": subject.metric("kube_notifier_relists_total") - relists,
        "relisted_s": listed,
        "peak_rss_mib": sampler.peak_mib(started),
        "vm_hwm_mib": procstat.peak_rss_bytes(subject.pid) / MIB,
        "rss_after_mib": sampler.median_mib(time.monotonic() - 1),
    }


def bursts(bench: Bench) -> tuple[int, list[int], float]:
    plan, made, matching, bursting = bench.plan, 0, [], 0.0
    for number in range(plan.bursts):
        if number:
            threading.Event().wait(plan.pause_seconds)  # the load's shape, not a wait for a result
        answer = bench.standin.control(
            "burst", plan.burst_seconds + 60, rate=plan.rate, seconds=plan.burst_seconds
        )
        made += answer["changes"]
        matching.extend(answer["matching"])
        bursting += answer["seconds"]
    return made, matching, bursting


def _drained(receiver: SeqReceiver, expected: set[int], timeout: float) -> None:
    """Until every expected change is told, or nothing arrived for 30 s, or ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if expected <= receiver.seqs() or time.monotonic() - receiver.last_arrival > 30:
            return
        threading.Event().wait(0.2)


def throughput(bench: Bench, subject: ScaleNotifier) -> Figures:
    bench.receiver.take()
    cpu, started = subject.cpu_seconds(), time.monotonic()
    made, matching, bursting = bursts(bench)
    _drained(bench.receiver, set(matching), bench.limits.drain)
    took = bench.receiver.last_arrival - started
    cpu = subject.cpu_seconds() - cpu
    received, unparsed = bench.receiver.take()
    score = score_changes(received, matching, cycle=bench.plan.pods)
    return {
        "changes": made,
        "offered_per_s": made / bursting,
        "seconds_to_last_notification": took,
        "changes_per_s": made / took,
        "notifications_per_s": len(received) / took,
        "cpu_s": cpu,
        "changes_per_cpu_s": made / cpu,
        "unparsed": unparsed,
        **score,
    }


def restart(bench: Bench, old: ScaleNotifier) -> Figures:
    stopping = time.monotonic()
    old.stop()
    stopped = time.monotonic() - stopping
    bench.receiver.take()
    subject = bench.notifier("restart", old.state, [])
    figures = _started(bench, subject, bench.samplers[-1])
    told = len(bench.receiver.take()[0])
    subject.stop()
    return {"stop_s": stopped, "notifications_after_restart": told, **figures}


def namespaced(bench: Bench) -> Figures:
    names = [namespace_name(index) for index in range(bench.plan.watch_namespaces)]
    subject = bench.notifier("namespaced", bench.work_dir / "namespaced.db", names)
    figures = _started(bench, subject, bench.samplers[-1])
    subject.stop()
    return {"namespaces": len(names), **figures}


class ScaleBaseline(Baseline):
    name = "baseline"

    def __init__(self, work_dir: Path, kubeconfig: Path, cpu: int | None) -> None:
        super().__init__(work_dir, kubeconfig, webhook="")
        self.cpu = cpu

    def argv(self) -> list[str]:
        command = super().argv()[:2]  # the interpreter and "-m"
        return pinned(
            [*command, "bench.scale.baseline", "--kubeconfig", str(self.kubeconfig)], self.cpu
        )


def baseline(bench: Bench) -> Figures:
    subject = ScaleBaseline(bench.work_dir, bench.kubeconfig, bench.plan.notifier_cpu)
    sampler = bench.launch(subject)
    ready = subject.wait_ready(bench.limits.start * 3)
    steady = steady_rss(subject, sampler, bench.limits)
    peak = procstat.peak_rss_bytes(subject.pid) / MIB
    subject.stop()
    return {"ready_s": ready, "steady_rss_mib": steady, "peak_rss_mib": peak}
