"""CPU time and memory read from /proc."""

from __future__ import annotations

import os
import time

from bench.e2e import procstat


def test_procstat_reads_this_processes_cpu_and_memory() -> None:
    before = procstat.cpu_seconds(os.getpid())
    deadline = time.process_time() + 0.05
    while time.process_time() < deadline:
        pass
    assert procstat.cpu_seconds(os.getpid()) > before
    assert procstat.peak_rss_bytes(os.getpid()) >= procstat.rss_bytes(os.getpid()) > 0
    assert procstat.machine_busy_seconds() > 0
