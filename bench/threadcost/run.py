"""Driving one measurement: stand-in, receiver, the service; an idle window, then each rate."""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench.scale.notifier import ScaleNotifier, write_kubeconfig
from bench.scale.phases import wait_quiet
from bench.scale.processes import StandInProcess
from bench.scale.receiver import SeqReceiver
from bench.threadcost.tasks import Cost, by_family, py_spy_names, read

PODS, NAMESPACES = 10_000, 500  # with 2 Deployments and 2 Services a namespace: 12,000 objects
QUIET_DRAIN = 10.0


@dataclass(frozen=True)
class Plan:
    rates: tuple[float, ...]
    seconds: float
    idle_seconds: float
    cpu: int | None  # the service's core; None: not pinned
    profile: Path | None = None  # py-spy's raw stacks of each rate window go here


class QuietNotifier(ScaleNotifier):
    """The scale bench's service at log level warning, as the e2e bench runs it."""

    def argv(self) -> list[str]:
        command = super().argv()
        command[command.index("info")] = "warning"
        return command


def _window(pid: int, names: dict[int, str], act: Any) -> dict[str, Cost]:
    before = read(pid)
    act()
    return by_family(before, read(pid), names)


def _drained(receiver: SeqReceiver, expected: set[int], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if expected <= receiver.seqs() or time.monotonic() - receiver.last_arrival > QUIET_DRAIN:
            return
        threading.Event().wait(0.1)


def _costs(costs: dict[str, Cost], changes: int, seconds: float) -> dict[str, Any]:
    return {
        "changes": changes,
        "seconds": seconds,
        "families": {name: asdict(cost) for name, cost in sorted(costs.items())},
    }


def measure(plan: Plan, work_dir: Path) -> dict[str, Any]:
    py_spy = shutil.which("py-spy") or str(Path(__file__).parents[2] / ".venv/bin/py-spy")
    standin = StandInProcess(work_dir, pods=PODS, namespaces=NAMESPACES)
    receiver = SeqReceiver()
    subject: QuietNotifier | None = None
    try:
        standin.start(timeout=180)
        receiver.start()
        kubeconfig = write_kubeconfig(work_dir / "kubeconfig", standin.url)
        subject = QuietNotifier(
            "threadcost", work_dir, kubeconfig, receiver.url,
            state=work_dir / "state.db", namespaces=[], cpu=plan.cpu,
        )  # fmt: skip
        subject.start()
        ready = subject.wait_ready(120)
        wait_quiet(subject, 120)  # the initial list acted on (logged at info: not seen here)
        names = py_spy_names(subject.pid, py_spy)
        pid = subject.pid
        idle = _window(pid, names, lambda: threading.Event().wait(plan.idle_seconds))
        figures: dict[str, Any] = {
            "ready_s": ready,
            "named_threads": len(names),
            "idle": _costs(idle, 0, plan.idle_seconds),
        }
        for rate in plan.rates:
            figures[f"at_{rate:g}"] = _rate(
                plan, standin=standin, receiver=receiver, pid=pid, names=names, rate=rate,
                py_spy=py_spy,
            )  # fmt: skip
        return figures
    finally:
        if subject is not None:
            subject.stop()
        receiver.stop()
        standin.stop()


def _rate(
    plan: Plan,
    *,
    standin: StandInProcess,
    receiver: SeqReceiver,
    pid: int,
    names: dict[int, str],
    rate: float,
    py_spy: str,
) -> dict[str, Any]:
    receiver.take()
    recorder = None
    if plan.profile is not None:
        # The thread holding the GIL (running Python), 250 samples a second: where CPU goes.
        output = plan.profile.with_name(f"{plan.profile.name}-at-{rate:g}.txt")
        recorder = subprocess.Popen(
            [py_spy, "record", "--format", "raw", "--rate", "250", "--gil",
             "--duration", f"{plan.seconds:.0f}", "--pid", str(pid), "--output", str(output)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
    answer: dict[str, Any] = {}
    started = time.monotonic()

    def burst() -> None:
        answer.update(standin.control("burst", plan.seconds + 60, rate=rate, seconds=plan.seconds))
        _drained(receiver, set(answer["matching"]), 60)

    costs = _window(pid, names, burst)
    if recorder is not None:
        recorder.wait(60)
    told, _unparsed = receiver.take()
    figures = _costs(costs, answer["changes"], time.monotonic() - started)
    return figures | {"expected": len(answer["matching"]), "told": len(set(told))}
