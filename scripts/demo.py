"""``make demo``: a local control plane, a node, kube-notifier, and a short scripted scenario.

Where the machine can run a real node (tests/controlplane/node.py: root, containerd,
runc, the CNI plugins, a kubelet), the demo starts etcd, kube-apiserver,
controller-manager and scheduler on 127.0.0.1 and a real kubelet in a network namespace
of its own, and shows a real crash loop and a real OOM kill, each told once
(scripts/demo_node.py); it stops everything it started and leaves nothing behind.
Elsewhere, or with ``--kwok``, it prints one line saying why and plays the kwok scenario
(scripts/demo_scenario.py): simulated nodes, a stuck rollout, a crash loop, an OOM kill
and 50 failing Pods in one digest.

Either way a webhook receiver prints what it gets, ``kube-notifier run --config
config.example.yaml`` runs, each step waits for what it causes, and a summary from
/metrics ends it. It exits 1 if a message never arrives, or if one arrived about an
object the scenario did not touch (a false alarm). tests/integration/test_demo.py runs
it on kwok, tests/integration/realnode/test_demo.py on a real node. Ctrl-C stops every
process it started.
"""

from __future__ import annotations

import argparse
import contextlib
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

from scripts import demo_node
from scripts.demo_scenario import SCENARIO_NAMESPACES, Scenario, ScenarioError, say
from tests.controlplane import node
from tests.controlplane.cluster import ControlPlane
from tests.controlplane.node import CONTROLLER_ARGS, RealNode
from tests.controlplane.processes import free_port
from tests.integration.kube import Kube
from tests.support.webhook_server import ReceivedRequest, Reply, WebhookServer

ROOT = Path(__file__).resolve().parents[1]


class PrintingReceiver(WebhookServer):
    """The local webhook receiver: prints the first line of what each POST says, and keeps
    aside any message about an object the scenario did not touch (a false alarm)."""

    def __init__(self, namespaces: frozenset[str]) -> None:
        super().__init__()
        self.namespaces = namespaces
        self.strays: list[str] = []

    def _respond(self, request: ReceivedRequest) -> Reply:
        body = request.json()
        summary = str(body.get("text") or body.get("summary") or json.dumps(body)[:200])
        print(f"  [webhook] {summary.splitlines()[0][:160]}", flush=True)
        if not _namespaces(body) <= self.namespaces:
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


def _start_cluster(plane: ControlPlane, stack: contextlib.ExitStack, real: bool) -> None:
    """The control plane, and a real node or kwok's simulated ones; stopped by ``stack``."""
    stack.callback(plane.stop)
    if not real:
        say("starting etcd, kube-apiserver, controller-manager, scheduler, kwok")
        plane.start()
        plane.start_full_tier()
        return
    say("starting etcd, kube-apiserver, controller-manager, scheduler, and a real node")
    plane.start()
    plane.start_full_tier(nodes=0, kwok=False, controller_args=CONTROLLER_ARGS)
    started = stack.enter_context(RealNode(plane, "demo-node"))
    say(f"node {started.name} Ready: a kubelet, containerd and runc in a network namespace")


def _start_service(
    plane: ControlPlane, receiver: PrintingReceiver
) -> tuple[int, subprocess.Popen[bytes]]:
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
    return port, service


def _stop_service(service: subprocess.Popen[bytes]) -> None:
    if service.poll() is None:
        service.terminate()
        service.wait(30)


def kwok_reason(argv: list[str] | None) -> str | None:
    """Why the demo plays on kwok rather than on a real node, or None."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kwok", action="store_true", help="kwok's simulated nodes, always")
    if parser.parse_args(argv).kwok:
        return "--kwok was given"
    return node.unavailable()


def main(argv: list[str] | None = None) -> int:
    reason = kwok_reason(argv)
    if reason:
        print(f"on kwok, not a real node: {reason}", flush=True)
    namespaces = SCENARIO_NAMESPACES if reason else demo_node.NAMESPACES
    receiver = PrintingReceiver(namespaces)
    try:
        with contextlib.ExitStack() as stack:
            plane = ControlPlane()
            _start_cluster(plane, stack, real=not reason)
            receiver.start()
            stack.callback(receiver.stop)
            port, service = _start_service(plane, receiver)
            stack.callback(_stop_service, service)
            scenario = Scenario if reason else demo_node.NodeScenario
            scenario(Kube(plane), receiver, port).play()
            summary(port)
            return _no_strays(receiver)
    except ScenarioError as exc:
        say(f"the scenario did not play out: {exc}")
        return 1
    except KeyboardInterrupt:
        say("interrupted: stopping everything")
        return 130


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
