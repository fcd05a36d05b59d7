"""The programs measured, each its own process: kube-notifier and the baseline here, kubewatch
in ``bench.e2e.kubewatch`` (on the same ``Subject``).

``start()`` launches the process; ``wait_ready()`` returns the seconds from
launch to ready: for kube-notifier the first 200 from ``/readyz`` (every
informer synced, delivery running), for the baseline its ``ready`` line
(every initial list cached). Both are polled, kube-notifier every 20 ms.
The phase workload (``workloads``) gives each its own rules: a churn
Pod's phase changing is one notification. ``stop()`` ends the process by
its PID (SIGTERM, then SIGKILL) and keeps its output in the work
directory.

kube-notifier runs ``python -m notifier run`` as shipped, with the config
below (written to the work directory), a durable state file (the outbox
is SQLite, as in the Helm chart) and the default 4 workers and webhook
delivery settings (4 connections, queue of 1,000 spilling to the outbox).
Every start of it in a run uses the same state file, as a user's restarts
do: the first start makes it (a first start: the initial list is the
baseline, told nothing), each later one compares the list with what the
previous run saved and tells what changed meanwhile (``catch_up``). It is
the one subject that ``keeps_state``: kubewatch and the baseline keep
nothing, so each of their starts is a first start.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from abc import ABC, abstractmethod
from pathlib import Path
from typing import IO

from bench.e2e import procstat
from tests.controlplane.processes import free_port

ROOT = Path(__file__).resolve().parents[2]

OUR_CONFIG = """\
# kube-notifier's config for the end-to-end bench (bench/e2e): every churn change is
# one notification, so nothing is folded (dedup off, no grouping).
cluster_name: bench
watch:
  kinds: [Pod, Deployment, Service]
  workers: 4
sinks:
  - name: webhook
    type: webhook
    url: ${KN_BENCH_WEBHOOK}
defaults:
  dedup_window: 0
rules:
  - name: bench-seq
    match:
      kinds: [Pod]
      events: [updated]
      labels: "bench=1"
      fields: [metadata.labels.seq]
    sinks: [webhook]
  - name: pod-failures
    match:
      kinds: [Pod]
      to: [Failed, CrashLoopBackOff, OOMKilled]
    sinks: [webhook]
  - name: image-changes
    match:
      kinds: [Deployment]
      to: [ImageChanged]
    sinks: [webhook]
"""


class Subject(ABC):
    name: str
    keeps_state = False  # a restart reads what the previous run saved (else: starts afresh)

    def __init__(self, work_dir: Path, kubeconfig: Path, webhook: str) -> None:
        self.work_dir = work_dir
        self.kubeconfig = kubeconfig
        self.webhook = webhook
        self.proc: subprocess.Popen[bytes] | None = None
        self.started_at = 0.0

    @abstractmethod
    def argv(self) -> list[str]: ...

    @abstractmethod
    def is_ready(self) -> bool: ...

    def env(self) -> dict[str, str]:
        return dict(os.environ)

    @property
    def log_path(self) -> Path:
        return self.work_dir / f"{self.name}.log"

    @property
    def pid(self) -> int:
        if self.proc is None:
            raise RuntimeError(f"{self.name} is not running")
        return self.proc.pid

    def start(self) -> None:
        with self.log_path.open("ab") as log:
            self.started_at = time.monotonic()
            self.proc = subprocess.Popen(
                self.argv(),
                stdin=subprocess.PIPE,
                stdout=self._stdout(log),
                stderr=log,
                env=self.env(),
                cwd=ROOT,
            )
        self._after_start()

    def _stdout(self, log: IO[bytes]) -> int | IO[bytes]:
        return log

    def _after_start(self) -> None:
        return None

    def wait_ready(self, timeout: float) -> float:
        """Seconds from launch to ready; RuntimeError if it exits or takes over ``timeout``."""
        while time.monotonic() - self.started_at < timeout:
            if self.proc is None or self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited before ready:\n{self.log_tail()}")
            if self.is_ready():
                return time.monotonic() - self.started_at
            time.sleep(0.02)
        raise RuntimeError(f"{self.name} not ready in {timeout:.0f}s:\n{self.log_tail()}")

    def log_tail(self, lines: int = 30) -> str:
        """The end of its output (the work directory is removed when the run ends)."""
        if not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def cpu_seconds(self) -> float:
        return procstat.cpu_seconds(self.pid)

    def tree_cpu_seconds(self) -> float:
        """Its process tree's CPU since launch (``procstat.tree_cpu_seconds``)."""
        return procstat.tree_cpu_seconds(self.pid)

    def peak_rss_bytes(self) -> int:
        return procstat.peak_rss_bytes(self.pid)

    def rss_bytes(self) -> int:
        return procstat.rss_bytes(self.pid)

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        if proc.stdin is not None:
            proc.stdin.close()


class KubeNotifier(Subject):
    name = "kube-notifier"
    keeps_state = True

    def __init__(
        self, work_dir: Path, kubeconfig: Path, webhook: str, config: str = OUR_CONFIG
    ) -> None:
        super().__init__(work_dir, kubeconfig, webhook)
        self.port = free_port()
        self.config_path = work_dir / "kube-notifier.yaml"
        self.config_path.write_text(config)
        self.state_path = work_dir / "kube-notifier-state.db"  # kept from start to start

    def argv(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "notifier",
            "run",
            "--config",
            str(self.config_path),
            "--kubeconfig",
            str(self.kubeconfig),
            "--listen",
            f"127.0.0.1:{self.port}",
            "--state",
            str(self.state_path),
            "--log-format",
            "json",
            "--log-level",
            "warning",
        ]

    def env(self) -> dict[str, str]:
        return {**os.environ, "KN_BENCH_WEBHOOK": self.webhook}

    def is_ready(self) -> bool:
        try:
            url = f"http://127.0.0.1:{self.port}/readyz"
            with urllib.request.urlopen(url, timeout=1) as response:
                return bool(response.status == 200)
        except (urllib.error.URLError, OSError):
            return False


class Baseline(Subject):
    name = "baseline"
    module = "bench.e2e.baseline"

    def __init__(
        self, work_dir: Path, kubeconfig: Path, webhook: str, *, phases: bool = False
    ) -> None:
        super().__init__(work_dir, kubeconfig, webhook)
        self._ready = threading.Event()
        self._phases = phases

    def argv(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            self.module,
            "--kubeconfig",
            str(self.kubeconfig),
            "--webhook",
            self.webhook,
            *(["--phases"] if self._phases else []),
        ]

    def _stdout(self, log: IO[bytes]) -> int | IO[bytes]:
        return subprocess.PIPE

    def _after_start(self) -> None:
        self._ready.clear()
        threading.Thread(target=self._read_stdout, daemon=True).start()

    def _read_stdout(self) -> None:
        proc = self.proc
        if proc is None or proc.stdout is None:
            return
        for line in proc.stdout:
            if line.startswith(b"ready"):
                self._ready.set()

    def is_ready(self) -> bool:
        return self._ready.is_set()


class Lean(Baseline):
    """The `kubernetes` client used well (``bench.e2e.lean``): the baseline without models,
    ready the same way (its ``ready`` line)."""

    name = "lean"
    module = "bench.e2e.lean"
