"""RSS of a process over time, sampled on a thread from /proc/<pid>/status.

``VmRSS`` every ``period`` seconds (50 ms): the peak of a phase is the
highest sample taken during it (a spike shorter than the period can be
missed; ``VmHWM``, the kernel's own high-water mark, is read beside it).
"""

from __future__ import annotations

import statistics
import threading
import time

from bench.e2e import procstat

MIB = 1024 * 1024


class RssSampler:
    def __init__(self, pid: int, period: float = 0.05) -> None:
        self.pid = pid
        self.period = period
        self._samples: list[tuple[float, int]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"rss-{pid}", daemon=True)

    def start(self) -> RssSampler:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                rss = procstat.rss_bytes(self.pid)
            except (OSError, KeyError):
                return  # the process is gone
            with self._lock:
                self._samples.append((time.monotonic(), rss))
            self._stop.wait(self.period)

    def between(self, start: float, end: float | None = None) -> list[int]:
        end = time.monotonic() if end is None else end
        with self._lock:
            return [rss for at, rss in self._samples if start <= at <= end]

    def peak_mib(self, start: float, end: float | None = None) -> float:
        return max(self.between(start, end), default=0) / MIB

    def median_mib(self, start: float, end: float | None = None) -> float:
        samples = self.between(start, end)
        return statistics.median(samples) / MIB if samples else 0.0
