"""CPU time and memory of a process, read from /proc (Linux only; no psutil needed).

``cpu_seconds``: user + system time of every thread of the process so far
(``/proc/<pid>/stat`` fields 14 and 15, in clock ticks). ``peak_rss_bytes``:
the high-water mark of its resident set (``VmHWM``), which the kernel keeps
for the life of the process, so it is read before the process is stopped.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    stat = Path(f"/proc/{pid}/stat").read_text()
    # The command name (field 2) may hold spaces and parentheses: split after its last ")".
    fields = stat[stat.rindex(")") + 2 :].split()
    utime, stime = int(fields[11]), int(fields[12])
    return (utime + stime) / TICKS_PER_SECOND


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


def total_cpu_seconds(pids: list[int]) -> float:
    """``cpu_seconds`` summed over the processes still there."""
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError):
            total += cpu_seconds(pid)
    return total
