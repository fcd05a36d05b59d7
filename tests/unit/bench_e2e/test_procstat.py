"""CPU time and memory read from /proc."""

from __future__ import annotations

import os
import subprocess
import sys
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


def test_a_process_trees_cpu_counts_its_children_running_and_ended() -> None:
    burn = (
        "import sys, time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass\n"
    )
    # The parent runs one burner to its end (waited for), then starts another and waits on
    # its stdin: the first is in the parent's ended children, the second a live descendant.
    program = (
        "import subprocess, sys\n"
        f"subprocess.run([sys.executable, '-c', {burn!r}], check=True)\n"
        f"child = subprocess.Popen([sys.executable, '-c', {burn!r} + 'print(1, flush=True)"
        "; sys.stdin.read()'], stdout=subprocess.PIPE, stdin=subprocess.PIPE)\n"
        "child.stdout.readline()\n"
        "print(child.pid, flush=True)\n"
        "sys.stdin.read()\n"
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", program], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert procstat.descendants(parent.pid) == [child]
        own = procstat.cpu_seconds(parent.pid)
        tree = procstat.tree_cpu_seconds(parent.pid)
        assert tree >= own + 0.5  # two burners of 0.3 s each, less a tick of rounding each
        assert procstat.cpu_seconds(child) >= 0.25
    finally:
        parent.communicate("\n", timeout=30)
