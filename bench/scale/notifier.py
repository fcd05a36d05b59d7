"""kube-notifier as the scale bench runs it: ``python -m notifier run`` pinned to one core.

Its config (below) watches Pods, Deployments and Services (all namespaces,
or ``watch.namespaces``) and has one rule: a Pod labelled ``bench=1`` whose
``seq`` label changed is told to the webhook (dedup off, no grouping), so
every change the stand-in makes to such a Pod is one notification. The
state file (the SQLite outbox and what was acted on) is given by the
caller, so a second start with the same file is a restart with saved state.
"""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from bench.e2e.subjects import Subject
from bench.scale.processes import pinned
from tests.controlplane.processes import free_port

CONFIG = """\
cluster_name: scale
watch:
  kinds: [Pod, Deployment, Service]
  namespaces: {namespaces}
sinks:
  - name: webhook
    type: webhook
    url: {webhook}
defaults:
  dedup_window: 0
rules:
  - name: seq
    match:
      kinds: [Pod]
      events: [updated]
      labels: "bench=1"
      fields: [metadata.labels.seq]
    sinks: [webhook]
"""
ACTED_ON = "initial list acted on"


def write_kubeconfig(path: Path, server: str) -> Path:
    cluster = {"name": "standin", "cluster": {"server": server}}
    context = {"name": "standin", "context": {"cluster": "standin", "user": "nobody"}}
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [cluster],
        "contexts": [context],
        "users": [{"name": "nobody", "user": {}}],
        "current-context": "standin",
    }
    path.write_text(json.dumps(config))
    return path


class ScaleNotifier(Subject):
    def __init__(
        self,
        name: str,
        work_dir: Path,
        kubeconfig: Path,
        webhook: str,
        *,
        state: Path,
        namespaces: list[str],
        cpu: int | None,
    ) -> None:
        super().__init__(work_dir, kubeconfig, webhook)
        self.name = name
        self.state = state
        self.cpu = cpu
        self.port = free_port()
        self.config_path = work_dir / f"{name}.yaml"
        self.config_path.write_text(
            CONFIG.format(namespaces=json.dumps(namespaces), webhook=webhook)
        )
        self._log_start = 0

    def argv(self) -> list[str]:
        command = [
            sys.executable, "-m", "notifier", "run", "--config", str(self.config_path),
            "--kubeconfig", str(self.kubeconfig), "--listen", f"127.0.0.1:{self.port}",
            "--state", str(self.state), "--log-format", "json", "--log-level", "info",
        ]  # fmt: skip
        return pinned(command, self.cpu)

    def start(self) -> None:
        self._log_start = self.log_path.stat().st_size if self.log_path.exists() else 0
        super().start()

    def env(self) -> dict[str, str]:
        return dict(os.environ)

    def _get(self, path: str) -> tuple[int, bytes]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=5) as r:
                return int(r.status), r.read()
        except urllib.error.HTTPError as err:
            return err.code, b""
        except (urllib.error.URLError, OSError):
            return 0, b""

    def is_ready(self) -> bool:
        return self._get("/readyz")[0] == 200

    def acted_on(self) -> bool:
        """The initial list was acted on (the service logs it once per start)."""
        with self.log_path.open("rb") as log:
            log.seek(self._log_start)
            return ACTED_ON.encode() in log.read()

    def metric(self, name: str) -> float:
        """The sum of a metric's samples over all labels (0 when absent)."""
        status, body = self._get("/metrics")
        if status != 200:
            return 0.0
        return sum(
            sample.value
            for family in text_string_to_metric_families(body.decode())
            for sample in family.samples
            if sample.name == name
        )

    def threads(self) -> int:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("Threads:"):
                return int(line.split()[1])
        return 0


def wait_until(
    condition: Callable[[], bool], timeout: float, what: str, period: float = 0.1
) -> float:
    """Poll ``condition()`` until true; the seconds it took, or RuntimeError past ``timeout``."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if condition():
            return time.monotonic() - started
        time.sleep(period)
    raise RuntimeError(f"{what}: not within {timeout:.0f}s")
