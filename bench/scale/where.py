"""Where kube-notifier's memory goes at scale: the service in this process, under tracemalloc.

Starts the stand-in, then runs ``kube-notifier run`` (the same command and
config as the scale bench) in this very process with tracemalloc on. Once
/readyz is 200 and the process is quiet, it takes a snapshot, prints the
lines that hold the most memory (``--frames`` deep) beside the RSS, and
stops the service with SIGTERM; with ``--at-peak``, the snapshot is the
one taken when the traced memory was highest before ready. With ``--restart``, a first service (its
own process) fills the state file and stops, so the traced one is a
restart with the saved state of every object.

tracemalloc slows the service down several times and adds its own
memory: the RSS printed is not the bench's; the shares are what to read.

    python -m bench.scale.where --pods 100000 [--restart] [--frames 3]
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path

from bench.e2e import procstat
from bench.scale.notifier import ScaleNotifier, wait_until, write_kubeconfig
from bench.scale.processes import StandInProcess
from bench.scale.receiver import SeqReceiver
from bench.scale.sampling import MIB
from notifier import cli

QUIET_SHARE = 0.1


def _quiet() -> bool:
    before = procstat.cpu_seconds(os.getpid())
    threading.Event().wait(2.0)
    return procstat.cpu_seconds(os.getpid()) - before < 2.0 * QUIET_SHARE


def _highest_until_ready(subject: ScaleNotifier, timeout: float) -> tracemalloc.Snapshot:
    """A snapshot each time the traced memory passed its highest yet by 5%, until ready."""
    best, snapshot = 0, tracemalloc.take_snapshot()
    deadline = time.monotonic() + timeout
    while not subject.is_ready() and time.monotonic() < deadline:
        if (now := tracemalloc.get_traced_memory()[0]) > best * 1.05:
            best, snapshot = now, tracemalloc.take_snapshot()
        threading.Event().wait(0.5)
    return snapshot


def report(subject: ScaleNotifier, frames: int, top: int, timeout: float, at_peak: bool) -> None:
    """On a thread: once ready and quiet (or at the peak), print a snapshot; stop the service."""
    try:
        highest = _highest_until_ready(subject, timeout) if at_peak else None
        wait_until(subject.is_ready, timeout, "ready", period=0.2)
        wait_until(_quiet, timeout, "quiet", period=0)
        snapshot = highest or tracemalloc.take_snapshot()
        traced, peak = tracemalloc.get_traced_memory()
        rss = procstat.rss_bytes(os.getpid())
        print(
            f"RSS {rss / MIB:.0f} MiB (tracemalloc's own in); traced now {traced / MIB:.0f} MiB,"
            f" at the peak {peak / MIB:.0f} MiB; the snapshot holds"
            f" {sum(stat.size for stat in snapshot.statistics('filename')) / MIB:.0f} MiB"
        )
        for stat in snapshot.statistics("traceback" if frames > 1 else "lineno")[:top]:
            print(f"{stat.size / MIB:8.1f} MiB {stat.count:>10,} blocks")
            for line in stat.traceback.format(limit=frames):
                print(f"    {line}")
    finally:
        os.kill(os.getpid(), signal.SIGTERM)


def fill_state(subject: ScaleNotifier, timeout: float) -> None:
    subject.start()
    try:
        subject.wait_ready(timeout)
        wait_until(subject.acted_on, timeout, "acted on")
    finally:
        subject.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pods", type=int, default=100_000)
    parser.add_argument("--namespaces", type=int, default=1_000)
    parser.add_argument("--restart", action="store_true")
    parser.add_argument("--frames", type=int, default=1)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument(
        "--at-peak", action="store_true", help="the snapshot of the most memory before ready"
    )
    args = parser.parse_args(argv)
    timeout = 120 + args.pods / 100
    with tempfile.TemporaryDirectory(prefix="kn-where-") as scratch:
        work_dir = Path(scratch)
        standin = StandInProcess(work_dir, pods=args.pods, namespaces=args.namespaces)
        receiver = SeqReceiver()
        try:
            standin.start(timeout=120 + args.pods / 200)
            receiver.start()
            kubeconfig = write_kubeconfig(work_dir / "kubeconfig", standin.url)

            def subject(name: str) -> ScaleNotifier:
                return ScaleNotifier(
                    name, work_dir, kubeconfig, receiver.url,
                    state=work_dir / "state.db", namespaces=[], cpu=None,
                )  # fmt: skip

            if args.restart:
                fill_state(subject("filling"), timeout)
            traced = subject("traced")
            tracemalloc.start(args.frames)
            started = time.monotonic()
            threading.Thread(
                target=report,
                args=(traced, args.frames, args.top, timeout, args.at_peak),
                daemon=True,
            ).start()
            code = cli.main(traced.argv()[3:])  # past the interpreter, "-m" and "notifier"
            print(f"service exited {code} after {time.monotonic() - started:.0f}s")
        finally:
            receiver.stop()
            standin.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
