"""Child processes that are always stopped by PID, even after a crashed test run.

Every started process gets a pid file in its run directory. A later run
(``reap_stale``) kills what an interrupted run left behind, so neither
ports nor processes leak from one run to the next.

A port is chosen free and then given to a server, which binds it a moment
later: meanwhile someone else may take it. ``free_port`` chooses below the
kernel's ephemeral range, so no outgoing connection and no ``bind(0)`` is
handed it; ``start_listening`` starts a server again on new ports when it
exits because one was taken all the same, and counts it as started only once
it listens on its ports itself (not whoever took one).
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, TypeVar

RUNS_ROOT_NAME = "kube-notifier-cp"
LOWEST_PORT = 20000  # free_port's range: from here to the kernel's ephemeral range
PORT_ATTEMPTS = 5  # starts of a server whose port was taken before it bound it
TAKEN = "address already in use"
LISTEN_STATE = "0A"  # TCP_LISTEN in /proc/net/tcp


def free_port() -> int:
    """A port nothing listens on, outside the range the kernel hands out by itself."""
    low, _ = ephemeral_range()
    for _ in range(100):
        port = random.randrange(LOWEST_PORT, low) if low > LOWEST_PORT + 1000 else 0
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            chosen: int = sock.getsockname()[1]
            return chosen
    raise RuntimeError(f"no free port in {LOWEST_PORT}-{low}")


def ephemeral_range() -> tuple[int, int]:
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 0, 0  # unknown: let the kernel choose


def listens(pid: int, port: int) -> bool:
    """Process ``pid`` itself holds a socket listening on ``port`` (Linux's /proc)."""
    sockets = {f"socket:[{inode}]" for inode in _listening_inodes(port)}
    with contextlib.suppress(OSError):
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                if os.readlink(fd) in sockets:
                    return True
    return False


def _listening_inodes(port: int) -> set[str]:
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for row in Path(table).read_text().splitlines()[1:]:
                fields = row.split()
                if fields[3] == LISTEN_STATE and int(fields[1].rsplit(":", 1)[1], 16) == port:
                    inodes.add(fields[9])
    return inodes


class Server(Protocol):
    """A child that listens: what ``wait_until`` and ``start_listening`` ask of it (a
    ``Process``, or the service of tests/integration/service.py)."""

    @property
    def name(self) -> str: ...

    @property
    def pid(self) -> int | None: ...

    def alive(self) -> bool: ...

    def port_taken(self) -> bool: ...

    def log_tail(self, lines: int = 40) -> str: ...

    def stop(self) -> object: ...


ServerT = TypeVar("ServerT", bound=Server)


class Process:
    """One long-running child with its log file, stopped by PID."""

    def __init__(self, name: str, argv: list[str], run_dir: Path) -> None:
        self.name = name
        self.argv = argv
        self.run_dir = run_dir
        self.log_path = run_dir / f"{name}.log"
        self.pid_path = run_dir / f"{name}.pid"
        self._popen: subprocess.Popen[bytes] | None = None
        self._log_from = 0  # where this start's part of the log begins

    def start(self) -> None:
        log = self.log_path.open("ab")
        self._log_from = log.tell()
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

    def port_taken(self) -> bool:
        """It exited because a port it was to listen on was taken."""
        return not self.alive() and logged_since(self.log_path, self._log_from, TAKEN)

    def log_tail(self, lines: int = 40) -> str:
        if not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])


def logged_since(log_path: Path, offset: int, words: str) -> bool:
    """Whether ``words`` are in the log past ``offset`` (where the last start began writing)."""
    if not log_path.exists():
        return False
    with log_path.open("rb") as log:
        log.seek(offset)
        return words in log.read().decode(errors="replace")


def wait_until(
    check: Callable[[], bool], timeout: float, what: str, proc: Server | None = None
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


Started = tuple[Process, list[int]]  # a server just started, and the ports it is to listen on


def start_listening(
    start: Callable[[], tuple[ServerT, list[int]]],
    first: tuple[ServerT, list[int]] | None = None,
    timeout: float = 60.0,
) -> ServerT:
    """``start()`` starts a server on ports it chooses (``first``: it did already); once the
    server listens on them it is returned. If it exits because a port was taken first,
    ``start()`` is called again."""
    attempt = 1
    while True:
        proc, ports = first or start()
        first = None

        def listening(proc: Server = proc, ports: list[int] = ports) -> bool:
            return proc.pid is not None and all(listens(proc.pid, port) for port in ports)

        try:
            wait_until(listening, timeout, f"{proc.name} listening on {ports}", proc)
            return proc
        except RuntimeError:  # it exited
            if attempt == PORT_ATTEMPTS or not proc.port_taken():
                raise
        proc.stop()
        attempt += 1


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
