"""Real Prometheus Alertmanagers on 127.0.0.1: a gossip cluster of peers, stopped by PID.

``AlertmanagerCluster(run_dir, receiver_url, peers=2)`` starts each peer (the
binary from the asset cache, ``make assets``) with its own web and cluster
ports, each peer told of the others (``--cluster.peer``), all routing every
alert to ``receiver_url`` (a webhook, ``send_resolved``). ``api(peer)`` is the
peer's API v2 base URL; ``kill(peer)`` ends one with SIGKILL.
"""

from __future__ import annotations

import json
import signal
import urllib.request
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from tests.controlplane import assets
from tests.controlplane.processes import Process, free_port, wait_until

CONFIG = """
global:
  resolve_timeout: 5m
route:
  receiver: hook
  group_by: [alertname, namespace, name]
  group_wait: 1s
  group_interval: 2s
  repeat_interval: 1h
receivers:
  - name: hook
    webhook_configs:
      - url: "{url}"
        send_resolved: true
"""


class AlertmanagerCluster:
    def __init__(self, run_dir: Path, receiver_url: str, *, peers: int = 2) -> None:
        self._binary = assets.require("alertmanager")
        self._dir = run_dir
        self._dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "alertmanager.yml").write_text(CONFIG.format(url=receiver_url))
        self.web_ports = [free_port() for _ in range(peers)]
        self.cluster_ports = [free_port() for _ in range(peers)]
        self.peers = [self._peer(index) for index in range(peers)]

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def start(self) -> Self:
        for peer in self.peers:
            peer.start()
        for index, peer in enumerate(self.peers):
            wait_until(partial(self._ready, index), 30, f"{peer.name} ready", peer)
        return self

    def stop(self) -> None:
        for peer in self.peers:
            peer.stop()

    def kill(self, index: int) -> None:
        self.peers[index].stop(sig=signal.SIGKILL)

    def url(self, index: int) -> str:
        return f"http://127.0.0.1:{self.web_ports[index]}"

    def api(self, index: int, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"{self.url(index)}/api/v2/{path}", data=data, method="POST" if data else "GET",
            headers={"Content-Type": "application/json"},
        )  # fmt: skip
        with urllib.request.urlopen(request, timeout=5) as answer:
            return json.loads(answer.read() or b"null")

    def _ready(self, index: int) -> bool:
        with urllib.request.urlopen(f"{self.url(index)}/-/ready", timeout=2) as answer:
            return bool(answer.status == 200)

    def _peer(self, index: int) -> Process:
        others = [port for i, port in enumerate(self.cluster_ports) if i != index]
        cluster = f"127.0.0.1:{self.cluster_ports[index]}"
        argv = [
            str(self._binary),
            f"--config.file={self._dir / 'alertmanager.yml'}",
            f"--storage.path={self._dir / f'data-{index}'}",
            f"--web.listen-address=127.0.0.1:{self.web_ports[index]}",
            f"--cluster.listen-address={cluster}",
            f"--cluster.advertise-address={cluster}",
            *(f"--cluster.peer=127.0.0.1:{port}" for port in others),
            "--cluster.gossip-interval=50ms",
            "--cluster.pushpull-interval=2s",
            "--cluster.peer-timeout=2s",
            "--cluster.settle-timeout=2s",
            "--log.level=info",
        ]
        return Process(f"alertmanager-{index}", argv, self._dir)
