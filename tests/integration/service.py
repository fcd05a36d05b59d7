"""Run ``kube-notifier run`` as its own process against the test control plane."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.controlplane.processes import (
    TAKEN,
    free_port,
    listens,
    logged_since,
    start_listening,
)
from tests.support.webhook_server import WebhookServer


class ServiceProcess:
    """``kube-notifier run`` as its own process, listening on a port chosen free.

    A port chosen free may be taken before the service binds it (tests/controlplane/
    processes.py says how): ``wait_ready`` starts it again on a new port when it exited
    saying so, as the control plane's servers are (``start_listening``).
    """

    name = "kube-notifier"

    def __init__(
        self, config: Path, kubeconfig: Path, state: Path | str, *, extra: list[str] | None = None
    ) -> None:
        self._options = [
            "--config",
            str(config),
            "--kubeconfig",
            str(kubeconfig),
            "--state",
            str(state),
            "--log-format",
            "json",
            "--shutdown-deadline",
            "10",
            *(extra or []),
        ]
        self._dir = config.parent
        self._log_from = 0  # where this start's part of the log begins
        self.proc: subprocess.Popen[bytes] | None = None
        self._listen_on(free_port())

    def command(self, port: int) -> list[str]:
        """What is run: the service, listening on ``port``."""
        listen = ["--listen", f"127.0.0.1:{port}"]
        return [sys.executable, "-m", "notifier", "run", *listen, *self._options]

    def _listen_on(self, port: int) -> None:
        self.port = port
        self.log_path = self._dir / f"service-{port}.log"
        self.argv = self.command(port)

    def start(self) -> ServiceProcess:
        log = self.log_path.open("ab")
        self._log_from = log.tell()
        self.proc = subprocess.Popen(
            self.argv, stdout=log, stderr=subprocess.STDOUT, env=os.environ.copy()
        )
        log.close()
        return self

    def get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=3) as resp:
                return resp.status, resp.read().decode()
        except urllib.error.HTTPError as err:
            return err.code, err.read().decode()

    def wait_ready(self, timeout: float = 30) -> None:
        """Until /readyz answers 200 from this process; started again on a new port (up to
        ``PORT_ATTEMPTS`` times) when it exited because its port was taken before it bound it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.alive():
                self._listening_again(deadline - time.monotonic())
            elif self._answers_ready() and self.pid and listens(self.pid, self.port):
                return
            time.sleep(0.1)
        raise AssertionError(f"not ready in {timeout}s:\n{self.output()}")

    def _answers_ready(self) -> bool:
        try:
            return self.get("/readyz")[0] == 200
        except OSError:
            return False

    def _listening_again(self, timeout: float) -> None:
        """It exited: started again on new ports while it was for a taken port, else fails."""
        try:
            start_listening(self._on_a_new_port, (self, [self.port]), timeout)
        except RuntimeError:  # it exited for another reason than its port
            raise AssertionError(f"exited before it was ready:\n{self.output()}") from None
        except TimeoutError:
            raise AssertionError(f"not listening in {timeout}s:\n{self.output()}") from None

    def _on_a_new_port(self) -> tuple[ServiceProcess, list[int]]:
        self._listen_on(free_port())
        return self.start(), [self.port]

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def port_taken(self) -> bool:
        """It exited because its port was taken (what its last start logged says so)."""
        return not self.alive() and logged_since(self.log_path, self._log_from, TAKEN)

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.output().splitlines()[-lines:])

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30) -> int:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
            raise

    def wait_exit(self, timeout: float = 30) -> int:
        assert self.proc is not None
        return self.proc.wait(timeout)

    def wait_for_output(self, check: Callable[[str], bool], timeout: float = 15) -> None:
        """Wait until ``check`` holds for the log so far; AssertionError (with it) if not."""
        deadline = time.monotonic() + timeout
        while not check(self.output()):
            assert time.monotonic() < deadline, self.output()
            time.sleep(0.2)

    def output(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


@contextmanager
def serving(
    config: Path, kubeconfig: Path, state: Path | str, *, extra: list[str] | None = None
) -> Iterator[ServiceProcess]:
    """The service started and ready; on leaving, stopped, and its exit 0 (or its log)."""
    service = ServiceProcess(config, kubeconfig, state, extra=extra).start()
    try:
        service.wait_ready()
        yield service
    finally:
        assert service.stop() == 0, service.output()


def keys_by_pod(receiver: WebhookServer) -> dict[str, set[str]]:
    """Pod name -> the idempotency keys its accepted notifications arrived under."""
    keys: dict[str, set[str]] = defaultdict(set)
    for request in receiver.received():
        if request.status == 200:
            name = json.loads(request.body).get("object", {}).get("name", "?")
            keys[name].add(request.header("Idempotency-Key") or "")
    return keys


def wait_acted_on(state: Path, wanted: dict[str, str], timeout: float = 30) -> None:
    """Until the state file records each Pod key at its resourceVersion (the service acted)."""
    until(lambda: _seen_versions(state, wanted) == wanted, timeout, f"not acted on: {wanted}")


def _seen_versions(state: Path, wanted: dict[str, str]) -> dict[str, str]:
    with sqlite3.connect(f"file:{state}?mode=ro", uri=True, timeout=5) as conn:
        rows = conn.execute("SELECT key, resource_version FROM seen WHERE kind = 'Pod'").fetchall()
    return {key: version for key, version in rows if key in wanted}


def until(check: Callable[[], bool], timeout: float, what: str) -> None:
    """Wait for ``check``; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"{what}: not in {timeout}s"
        time.sleep(0.1)
