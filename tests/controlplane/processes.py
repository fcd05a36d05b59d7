"""Child processes that are always stopped by PID, even after a crashed test run.

Every started process gets a pid file in its run directory. A later run
(``reap_stale``) kills what an interrupted run left behind, so neither
ports nor processes leak from one run to the next.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

RUNS_ROOT_NAME = "kube-notifier-cp"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Process:
    """One long-running child with its log file, stopped by PID."""

    def __init__(self, name: str, argv: list[str], run_dir: Path) -> None:
        self.name = name
        self.argv = argv
        self.run_dir = run_dir
        self.log_path = run_dir / f"{name}.log"
        self.pid_path = run_dir / f"{name}.pid"
        self._popen: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        log = self.log_path.open("ab")
        self._popen = subprocess.Popen(
            self.argv,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        log.close()
        self.pid_path.write_text(str(self._popen.pid))

    @property
    def pid(self) -> int | None:
        return self._popen.pid if self._popen else None

    def alive(self) -> bool:
        return self._popen is not None and self._popen.poll() is None

    def stop(self, grace: float = 10.0, sig: int = signal.SIGTERM) -> None:
        if self._popen is None:
            return
        if self._popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._popen.pid, sig)
            try:
                self._popen.wait(grace)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self._popen.pid, signal.SIGKILL)
                self._popen.wait(5)
        self._popen = None
        self.pid_path.unlink(missing_ok=True)

    def log_tail(self, lines: int = 40) -> str:
        if not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])


def wait_until(
    check: Callable[[], bool], timeout: float, what: str, proc: Process | None = None
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and not proc.alive():
            raise RuntimeError(f"{proc.name} exited while waiting for {what}:\n{proc.log_tail()}")
        with contextlib.suppress(Exception):
            if check():
                return
        time.sleep(0.1)
    tail = proc.log_tail() if proc else ""
    raise TimeoutError(f"timed out after {timeout}s waiting for {what}\n{tail}")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def reap_stale(root: Path) -> None:
    """Kill processes of earlier runs whose owning test process is gone, then drop their dirs."""
    if not root.is_dir():
        return
    for run_dir in root.iterdir():
        owner = run_dir / "owner.pid"
        if owner.exists() and _pid_alive(int(owner.read_text() or 0)):
            continue
        for pid_file in run_dir.glob("*.pid"):
            with contextlib.suppress(ValueError, ProcessLookupError, PermissionError):
                os.killpg(int(pid_file.read_text()), signal.SIGKILL)
        subprocess.run(["rm", "-rf", str(run_dir)], check=False)
