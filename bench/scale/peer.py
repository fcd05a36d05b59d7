"""kubewatch against the same stand-in in the same run, so the scale bench's figures are ratios
as well as absolute figures that move with the machine.

kubewatch (the e2e bench's ``Kubewatch``: v2.15.0 built from its source,
``bench.e2e.kubewatch.resolve``) runs pinned to kube-notifier's core, with
the same kubeconfig and receiver, after kube-notifier's phases (nothing
else of ours runs then). Measured as kube-notifier's first start is: ready
(its Pod, Deployment and Service controllers each logged that they
synced), CPU by then (ours: by "acted on"; its queue of an event per
object still to go), steady RSS once quiet; then the same bursts of changes from
the stand-in, drained until it posted as many Pod updates as changes were
made (or nothing came for 30 s): changes/s end to end, CPU per 1,000
changes, peak RSS (VmHWM).

It posts every update of every Pod (no rule), so it sends twice the
notifications kube-notifier does for the bench's rule (half the Pods): its
CPU per change includes twice the POSTs, so that ratio leans our way (the
e2e bench's phase workload is the like-for-like comparison). When it did not post
one update per change (its posts failing: each is a new connection, and at 5,000
changes a second loopback runs out of ports in TIME_WAIT), the burst ratios are left
out: its CPU then covers failed posts.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from bench.e2e import procstat
from bench.e2e.kubewatch import Kubewatch
from bench.scale.phases import Bench, bursts, steady_rss, wait_quiet
from bench.scale.processes import pinned
from bench.scale.receiver import SeqReceiver
from bench.scale.sampling import MIB

Figures = dict[str, Any]
QUIET_DRAIN = 30.0
BYTES_PER_POD = 40_000  # what it needs at most per ~9.5 KB Pod (whole objects, Go structs)


class ScaleKubewatch(Kubewatch):
    def __init__(
        self, work_dir: Path, kubeconfig: Path, webhook: str, binary: Path, cpu: int | None
    ) -> None:
        super().__init__(work_dir, kubeconfig, webhook, binary)
        self.cpu = cpu

    def argv(self) -> list[str]:
        return pinned(super().argv(), self.cpu)


def drained(receiver: SeqReceiver, before: int, made: int, timeout: float) -> None:
    """Until kubewatch posted ``made`` Pod updates since ``before``, or nothing arrived for
    ``QUIET_DRAIN`` seconds, or ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if receiver.kubewatch_updates() - before >= made:
            return
        if time.monotonic() - receiver.last_arrival > QUIET_DRAIN:
            return
        threading.Event().wait(0.2)


def kubewatch(bench: Bench, binary: Path) -> Figures:
    subject = ScaleKubewatch(
        bench.work_dir, bench.kubeconfig, bench.receiver.url, binary, bench.plan.notifier_cpu
    )
    sampler = bench.launch(subject)
    ready = subject.wait_ready(bench.limits.start)
    start_cpu = subject.cpu_seconds()  # as kube-notifier's: at ready (ours: acted on)
    quiet = wait_quiet(subject, bench.limits.quiet)
    steady = steady_rss(subject, sampler, bench.limits)
    before, cpu, started = (
        bench.receiver.kubewatch_updates(),
        subject.cpu_seconds(),
        time.monotonic(),
    )
    made, _matching, _bursting = bursts(bench)
    drained(bench.receiver, before, made, bench.limits.drain)
    took = bench.receiver.last_arrival - started
    cpu = subject.cpu_seconds() - cpu
    told = bench.receiver.kubewatch_updates() - before
    peak = procstat.peak_rss_bytes(subject.pid) / MIB
    subject.stop()
    return {
        "ready_s": ready,
        "quiet_after_ready_s": quiet,
        "cpu_s_to_quiet": start_cpu,
        "steady_rss_mib": steady,
        "peak_rss_mib": peak,
        "changes": made,
        "told": told,
        "seconds_to_last_notification": took,
        "changes_per_s": made / took if took > 0 else 0.0,
        "cpu_s": cpu,
        "cpu_s_per_1000_changes": cpu / made * 1000 if made else None,
    }


def ratios(figures: Figures) -> Figures:
    """kubewatch / kube-notifier for costs (above 1: kube-notifier is better) and
    kube-notifier / kubewatch for the rate."""
    peer, fresh, flow = figures["kubewatch"], figures["first_start"], figures["throughput"]
    ours_cpu = flow["cpu_s"] / flow["changes"] * 1000 if flow["changes"] else None
    told_all = peer["told"] >= peer["changes"]  # else its burst figures compare nothing
    return {
        "ready": _over(peer["ready_s"], fresh["ready_s"]),
        "cpu_s_to_quiet": _over(peer["cpu_s_to_quiet"], fresh["cpu_s_to_quiet"]),
        "steady_rss": _over(peer["steady_rss_mib"], fresh["steady_rss_mib"]),
        "peak_rss": _over(peer["peak_rss_mib"], fresh["peak_rss_mib"]),
        "cpu_per_1000_changes": _over(peer["cpu_s_per_1000_changes"], ours_cpu)
        if told_all
        else None,
        "changes_per_s_ours_over_kubewatch": _over(flow["changes_per_s"], peer["changes_per_s"])
        if told_all
        else None,
    }


def _over(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or not denominator:
        return None
    return numerator / denominator
