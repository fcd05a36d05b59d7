"""Who used the CPU during a trial: the subject, the control plane, the bench, everyone else.

``CpuMeter.snapshot`` reads user + system time per party from /proc; the
difference of two snapshots is a ``CpuShares``. The bench is this process
and its children but the subject and the control plane (which it also
started): the churn workers and the receiver. ``others`` is what the rest
of the machine used meanwhile (all cores' busy time from /proc/stat minus
the parties above): other people's work on a shared machine.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields

from bench.e2e import procstat
from bench.e2e.subjects import Subject


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
        return CpuShares(*(getattr(after, f.name) - getattr(before, f.name) for f in fields(after)))
