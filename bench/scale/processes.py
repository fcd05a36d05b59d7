"""Starting and stopping the bench's own processes: the stand-in, by PID, pinned to a core.

``pinned`` prefixes a command with ``taskset -c CPU`` (taskset execs the
command, so the PID is the program's own). ``StandInProcess`` starts
``python -m bench.scale.standin``, waits for its ``listening PORT`` line
within a deadline, answers control requests and stops it by PID.
"""

from __future__ import annotations

import json
import selectors
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def pinned(argv: list[str], cpu: int | None) -> list[str]:
    return argv if cpu is None else ["taskset", "-c", str(cpu), *argv]


def stop_process(proc: subprocess.Popen[bytes], grace: float = 20.0) -> None:
    """SIGTERM, then SIGKILL after ``grace`` seconds; waits for the exit either way."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def read_line(proc: subprocess.Popen[bytes], prefix: bytes, timeout: float) -> bytes:
    """The first stdout line that starts with ``prefix``; RuntimeError past ``timeout``."""
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        while (left := deadline - time.monotonic()) > 0:
            if not selector.select(left):
                break
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError(f"exited ({proc.wait(5)}) before printing {prefix!r}")
            if line.startswith(prefix):
                return line
    raise RuntimeError(f"no {prefix!r} line within {timeout:.0f}s")


class StandInProcess:
    def __init__(
        self,
        work_dir: Path,
        *,
        pods: int,
        namespaces: int,
        cpu: int | None = None,
        bookmark_seconds: float = 5.0,
        history: int = 50_000,
        module: str = "bench.scale.standin",  # another stand-in with more controls (bench.soak)
    ) -> None:
        self.log_path = work_dir / "standin.log"
        self.argv = pinned(
            [
                sys.executable, "-m", module, "--pods", str(pods),
                "--namespaces", str(namespaces), "--bookmark-seconds", str(bookmark_seconds),
                "--history", str(history),
            ],
            cpu,
        )  # fmt: skip
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float) -> StandInProcess:
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(self.argv, stdout=subprocess.PIPE, stderr=log, cwd=ROOT)
        try:
            self.port = int(read_line(self.proc, b"listening ", timeout).split()[1])
        except RuntimeError as err:
            self.stop()
            raise RuntimeError(f"stand-in: {err}\n{self.log_tail()}") from err
        return self

    def control(self, action: str, timeout: float, **query: float) -> dict[str, Any]:
        params = "&".join(f"{name}={value}" for name, value in query.items())
        request = urllib.request.Request(f"{self.url}/control/{action}?{params}", method="POST")
        with urllib.request.urlopen(request, timeout=timeout) as response:
            answer: dict[str, Any] = json.loads(response.read())
            return answer

    def log_tail(self, lines: int = 20) -> str:
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            stop_process(proc, grace=10)
            if proc.stdout is not None:
                proc.stdout.close()
