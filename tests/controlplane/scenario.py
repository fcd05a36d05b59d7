"""Issue #37's incidents on a real node, told by kube-notifiers, counted per incident.

``Scenario.run`` creates every incident at once (they play out concurrently), waits
until each has played out, then loses the node (its kubelet stops until the
controller-manager marks it Unknown) and brings it back, then waits until no
notifier has said anything for ``QUIET_SECONDS`` (longer than a ``group_wait``).
Each webhook message is put down to the incident whose namespace it names.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.controlplane.cluster import ControlPlane
from tests.controlplane.incidents import INCIDENTS, NODE_LOST, Incident
from tests.controlplane.node import RealNode
from tests.controlplane.processes import free_port, wait_until
from tests.controlplane.statuses import StatusRecorder
from tests.support.webhook_server import WebhookServer

PLAY_SECONDS = 180  # the slowest incident (3 crash-loop restarts) takes about 80 s
QUIET_SECONDS = 35  # > the example's group_wait (30 s): a digest still due has come
RECOVERY_SECONDS = 65  # > both configs' recovery_window (60 s): a resolution has come
QUIET_MAX_SECONDS = 180
OTHER = "(none)"


class Notifier:
    """``kube-notifier run`` with ``config``, posting to a webhook receiver of its own."""

    def __init__(self, name: str, config: Path, plane: ControlPlane, directory: Path) -> None:
        self.name = name
        self.receiver = WebhookServer().start()
        self.port = free_port()
        self.log_path = directory / f"notifier-{name}.log"
        env = {**os.environ, "KN_WEBHOOK_URL": self.receiver.url, "KN_CLUSTER_NAME": "real-node"}
        argv = [sys.executable, "-m", "notifier", "run", "--config", str(config)]
        argv += ["--kubeconfig", str(plane.kubeconfig), "--listen", f"127.0.0.1:{self.port}"]
        argv += ["--state", str(directory / f"state-{name}.db"), "--log-format", "json"]
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env)
        self._wait_ready(60)

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            try:
                url = f"http://127.0.0.1:{self.port}/readyz"
                with urllib.request.urlopen(url, timeout=2) as resp:
                    if resp.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.2)
        tail = self.log_path.read_text(errors="replace")[-3000:]
        raise RuntimeError(f"kube-notifier {self.name} not ready in {timeout} s:\n{tail}")

    def messages(self) -> list[dict[str, Any]]:
        return [r.json() for r in self.receiver.received() if r.method == "POST"]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.receiver.stop()


def incident_of(message: dict[str, Any]) -> str:
    """The incident a webhook message is about: its namespace, or node-lost for a Node."""
    subject = message.get("object") or (message.get("items") or [{}])[0]
    if subject.get("kind") == "Node":
        return NODE_LOST
    namespace = subject.get("namespace") or (message.get("group") or {}).get("namespace")
    return str(namespace or OTHER)


def describe(message: dict[str, Any]) -> str:
    status = message.get("status", message.get("type", ""))
    return f"{status}: {message.get('summary', '')}"


@dataclass
class Told:
    """What one notifier told about one incident."""

    messages: list[str] = field(default_factory=list)
    resolutions: int = 0

    @property
    def count(self) -> int:
        return len(self.messages)


@dataclass
class Outcome:
    told: dict[str, dict[str, Told]]  # notifier -> incident -> what it told
    seconds: float
    recorder: StatusRecorder

    def of(self, notifier: str, incident: str) -> Told:
        return self.told[notifier].get(incident, Told())


class Scenario:
    def __init__(self, plane: ControlPlane, node: RealNode, notifiers: dict[str, Notifier]) -> None:
        self.plane, self.node, self.notifiers = plane, node, notifiers
        self.recorder = StatusRecorder(plane).start()

    def _create(self, incident: Incident) -> None:
        self.plane.kubectl("create", "namespace", incident.name)
        for manifest in incident.objects:
            self.plane.kubectl(
                "apply", "-n", incident.name, "-f", "-", input_text=json.dumps(manifest)
            )

    def _node_ready(self, status: str) -> bool:
        story = self.recorder.story("Node", "", self.node.name)
        return bool(story) and any(
            c.startswith(f"Ready={status}") for c in story[-1].summary["conditions"]
        )

    def lose_node(self) -> None:
        self.node.stop_kubelet()
        wait_until(lambda: self._node_ready("Unknown"), 60, "node marked Unknown")
        self.node.start_kubelet()
        wait_until(lambda: self._node_ready("True"), 60, "node Ready again")

    def _wait_quiet(self) -> None:
        """Until no notifier said anything for QUIET_SECONDS, counted from the end of the
        recovery window at the earliest (the node's return is told once it has been back
        that long, and may wait out a group_wait)."""
        since = time.monotonic() + RECOVERY_SECONDS - QUIET_SECONDS
        deadline = since + QUIET_MAX_SECONDS
        while time.monotonic() < deadline:
            arrivals = [
                r.arrived_at for n in self.notifiers.values() for r in n.receiver.received()
            ]
            if time.monotonic() - max([*arrivals, since]) >= QUIET_SECONDS:
                return
            time.sleep(0.5)

    def run(self) -> Outcome:
        self.recorder.wait_synced()
        started = time.monotonic()
        for incident in INCIDENTS:
            if not incident.after:
                self._create(incident)
        for incident in INCIDENTS:
            wait_until(
                lambda i=incident: i.played_out(self.recorder, i.name),  # type: ignore[misc]
                PLAY_SECONDS - (time.monotonic() - started),
                f"incident {incident.name} played out",
            )
            for later in INCIDENTS:
                if later.after == incident.name:
                    self._create(later)
        self.lose_node()
        self._wait_quiet()
        told = {name: self.told_by(n) for name, n in self.notifiers.items()}
        return Outcome(told, time.monotonic() - started, self.recorder)

    @staticmethod
    def told_by(notifier: Notifier) -> dict[str, Told]:
        """What ``notifier`` told, by incident."""
        told: dict[str, Told] = {}
        for message in notifier.messages():
            entry = told.setdefault(incident_of(message), Told())
            entry.messages.append(describe(message))
            entry.resolutions += message.get("status") == "resolved"
        return told


def dump(outcome: Outcome) -> str:
    """Every message each notifier got, by incident (for a failing test's report)."""
    return json.dumps(
        {name: {i: t.messages for i, t in told.items()} for name, told in outcome.told.items()},
        indent=1,
    )
