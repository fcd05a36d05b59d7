"""A process's threads from /proc: CPU ticks and context switches, by thread family. Pure but
for ``read``."""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bench.e2e.procstat import TICKS_PER_SECOND

DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class Task:
    cpu_s: float
    voluntary: int
    involuntary: int
    system_s: float = 0.0  # of cpu_s, in the kernel (system calls, wake-ups, page faults)


def parse_stat(text: str) -> float:
    """User + system seconds of one task's ``stat`` line (the name may hold ") ")."""
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / TICKS_PER_SECOND


def parse_system(text: str) -> float:
    """System seconds (the kernel's share) of one task's ``stat`` line."""
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[12]) / TICKS_PER_SECOND


def parse_switches(text: str) -> tuple[int, int]:
    """(voluntary, nonvoluntary) context switches of one task's ``status``."""
    found = dict(
        line.split(":", 1) for line in text.splitlines() if line.endswith(tuple("0123456789"))
    )
    return int(found["voluntary_ctxt_switches"]), int(found["nonvoluntary_ctxt_switches"])


def read(pid: int) -> dict[int, Task]:
    """Every thread of ``pid`` now, by OS thread id (threads that end meanwhile are left out)."""
    tasks: dict[int, Task] = {}
    for path in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError, ValueError, KeyError):
            voluntary, involuntary = parse_switches((path / "status").read_text())
            stat = (path / "stat").read_text()
            tasks[int(path.name)] = Task(
                parse_stat(stat), voluntary, involuntary, parse_system(stat)
            )
    return tasks


def family(name: str) -> str:
    """``worker-3`` -> ``worker-*``: threads of one kind summed together."""
    return DIGITS.sub("*", name)


def thread_names(dump: str) -> dict[int, str]:
    """OS thread id -> Python thread name, from ``py-spy dump --json``."""
    threads = json.loads(dump) if dump.strip() else []
    return {
        int(thread["os_thread_id"]): str(thread.get("thread_name") or "?")
        for thread in threads
        if thread.get("os_thread_id") is not None
    }


def py_spy_names(pid: int, py_spy: str) -> dict[int, str]:
    done = subprocess.run(
        [py_spy, "dump", "--json", "--pid", str(pid)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return thread_names(done.stdout) if done.returncode == 0 else {}


@dataclass
class Cost:
    cpu_s: float = 0.0
    voluntary: int = 0
    involuntary: int = 0
    threads: int = 0
    system_s: float = 0.0


def by_family(
    before: Mapping[int, Task], after: Mapping[int, Task], names: Mapping[int, str]
) -> dict[str, Cost]:
    """What each thread family spent between the two readings (a thread new since ``before``
    counts from zero); threads py-spy did not name are summed as one ``other``."""
    costs: dict[str, Cost] = defaultdict(Cost)
    for tid, now in after.items():
        was = before.get(tid, Task(0.0, 0, 0))
        cost = costs[family(names.get(tid, "other (not Python, or unnamed)"))]
        cost.cpu_s += now.cpu_s - was.cpu_s
        cost.system_s += now.system_s - was.system_s
        cost.voluntary += now.voluntary - was.voluntary
        cost.involuntary += now.involuntary - was.involuntary
        cost.threads += 1
    return dict(costs)
