"""``make demo``: a local control plane, kube-notifier, and a short scripted scenario.

Starts etcd, kube-apiserver, controller-manager, scheduler and kwok on
127.0.0.1, a webhook receiver that prints what it gets, and
``kube-notifier run --config config.example.yaml``; then plays a scenario
and prints a summary from /metrics (scripts/demo_scenario.py: each step waits
for what it causes, and the scenario ends once its messages have arrived). It
exits 1 if one of them never arrives, or if a message arrived about an object
the scenario did not touch (a false alarm: the fake nodes' Leases are kept
renewed by kwok so none turns Unknown); tests/integration/test_demo.py runs
it. Ctrl-C stops every process it started.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from scripts.demo_scenario import SCENARIO_NAMESPACES, Scenario, ScenarioError, say
from tests.controlplane.cluster import ControlPlane
from tests.controlplane.processes import free_port
from tests.integration.kube import Kube
from tests.support.webhook_server import ReceivedRequest, Reply, WebhookServer

ROOT = Path(__file__).resolve().parents[1]


class PrintingReceiver(WebhookServer):
    """The local webhook receiver: prints the first line of what each POST says, and keeps
    aside any message about an object the scenario did not touch (a false alarm)."""

    def __init__(self) -> None:
        super().__init__()
        self.strays: list[str] = []

    def _respond(self, request: ReceivedRequest) -> Reply:
        body = request.json()
        summary = str(body.get("text") or body.get("summary") or json.dumps(body)[:200])
        print(f"  [webhook] {summary.splitlines()[0][:160]}", flush=True)
        if not _namespaces(body) <= SCENARIO_NAMESPACES:
            self.strays.append(summary.splitlines()[0][:160])
        return super()._respond(request)


def _namespaces(body: dict[str, Any]) -> set[str]:
    """The namespaces a webhook message is about ("" for a cluster-scoped object)."""
    items = body.get("items") or [body.get("object") or {}]
    return {str(item.get("namespace") or "") for item in items if isinstance(item, dict)}


def summary(port: int) -> None:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
        text = resp.read().decode()
    totals: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if not sample.name.endswith("_total"):
                continue
            label = ",".join(f"{k}={v}" for k, v in sorted(sample.labels.items()))
            totals[f"{sample.name}{{{label}}}"] = sample.value
    say("summary (from /metrics)")
    wanted = ("transitions", "matched", "suppress", "sent", "delivered", "failed", "watch_events")
    for name, value in sorted(totals.items()):
        if value and any(w in name for w in wanted):
            print(f"  {name:90s} {value:8.0f}")


def main() -> int:
    plane = ControlPlane()
    receiver = PrintingReceiver()
    service: subprocess.Popen[bytes] | None = None
    try:
        say("starting etcd, kube-apiserver, controller-manager, scheduler, kwok")
        plane.start()
        plane.start_full_tier()
        receiver.start()
        port = free_port()
        state = Path(tempfile.mkdtemp(prefix="kn-demo-")) / "state.db"
        env = {**os.environ, "KN_WEBHOOK_URL": receiver.url}
        say(f"starting kube-notifier (metrics on http://127.0.0.1:{port}/metrics)")
        service = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "notifier",
                "run",
                "--config",
                str(ROOT / "config.example.yaml"),
                "--kubeconfig",
                str(plane.kubeconfig),
                "--listen",
                f"127.0.0.1:{port}",
                "--state",
                str(state),
                "--log-format",
                "text",
                "--log-level",
                "warning",
                "--debug-decisions",  # the scenario waits on what the service decided
            ],
            env=env,
        )
        _wait_ready(port, service)
        Scenario(Kube(plane), receiver, port).play()
        summary(port)
        return _no_strays(receiver)
    except ScenarioError as exc:
        say(f"the scenario did not play out: {exc}")
        return 1
    except KeyboardInterrupt:
        say("interrupted: stopping everything")
        return 130
    finally:
        if service is not None and service.poll() is None:
            service.terminate()
            service.wait(30)
        receiver.stop()
        plane.stop()


def _no_strays(receiver: PrintingReceiver) -> int:
    """1 if anything arrived that the scenario did not cause (e.g. a node turning Unknown)."""
    if not receiver.strays:
        say("every message above came from the scenario")
        return 0
    say(f"{len(receiver.strays)} message(s) the scenario did not cause:")
    for line in receiver.strays:
        print(f"  {line}")
    return 1


def _wait_ready(port: int, service: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if service.poll() is not None:
            raise SystemExit(f"kube-notifier exited with {service.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("kube-notifier did not become ready")


if __name__ == "__main__":
    sys.exit(main())
