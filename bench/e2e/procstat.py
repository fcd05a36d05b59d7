"""CPU time and memory of a process, read from /proc (Linux only; no psutil needed).

``cpu_seconds``: user + system time of every thread of the process so far
(``/proc/<pid>/stat`` fields 14 and 15, in clock ticks). ``tree_cpu_seconds``:
the same for a process and every descendant still running
(``/proc/<pid>/task/*/children``, recursively), each with the time of its
children that have ended and been waited for (fields 16 and 17), so a
process tree's CPU counts helpers that came and went. ``peak_rss_bytes``:
the high-water mark of its resident set (``VmHWM``), which the kernel keeps
for the life of the process, so it is read before the process is stopped.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")


def _stat_ticks(pid: int) -> tuple[int, int, int, int]:
    """utime, stime, cutime, cstime of ``/proc/<pid>/stat``, in clock ticks."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    # The command name (field 2) may hold spaces and parentheses: split after its last ")".
    fields = stat[stat.rindex(")") + 2 :].split()
    utime, stime, cutime, cstime = (int(f) for f in fields[11:15])
    return utime, stime, cutime, cstime


def cpu_seconds(pid: int) -> float:
    utime, stime, _cutime, _cstime = _stat_ticks(pid)
    return (utime + stime) / TICKS_PER_SECOND


def tree_cpu_seconds(pid: int) -> float:
    """User + system time of ``pid``, its descendants and their ended children; OSError
    when ``pid`` is gone (a descendant that ends meanwhile is left out)."""
    total = sum(_stat_ticks(pid))
    for child in descendants(pid):
        with contextlib.suppress(OSError):
            total += sum(_stat_ticks(child))
    return total / TICKS_PER_SECOND


def _status_kib(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{key}:"):
            return int(line.split()[1])
    raise KeyError(f"{key} not in /proc/{pid}/status")


def peak_rss_bytes(pid: int) -> int:
    return _status_kib(pid, "VmHWM") * 1024


def rss_bytes(pid: int) -> int:
    return _status_kib(pid, "VmRSS") * 1024


def machine_busy_seconds() -> float:
    """CPU time every core of the machine spent busy since boot (``/proc/stat``, all but idle)."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(f) for f in fields[:8])
    return (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND


def children(pid: int) -> list[int]:
    """Direct children of ``pid`` (every thread's ``children`` file)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            found.extend(int(c) for c in (task / "children").read_text().split())
    return found


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` still running, children first."""
    found: list[int] = []
    waiting = [pid]
    while waiting:
        with contextlib.suppress(OSError):
            below = children(waiting.pop())
            found.extend(below)
            waiting.extend(below)
    return found


def total_cpu_seconds(pids: list[int]) -> float:
    """``cpu_seconds`` summed over the processes still there."""
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError):
            total += cpu_seconds(pid)
    return total
