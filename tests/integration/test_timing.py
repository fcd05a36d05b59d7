"""``for:`` through the running service on the real control plane (tier 2, kwok nodes).

A StatefulSet or DaemonSet rolled to an image that cannot be pulled stays
``Progressing``: the controller-manager's own controllers halt the rollout,
kwok reports the new pods' ``ImagePullBackOff`` (tests/controlplane/stages).
"""

from __future__ import annotations

import re
import signal
import sqlite3
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.controlplane.cluster import ControlPlane
from tests.integration.kube import Kube
from tests.integration.service import ServiceProcess, until
from tests.support.webhook_server import WebhookServer

pytestmark = [pytest.mark.integration, pytest.mark.fullcluster]

CONFIG = """
cluster_name: test
watch:
  namespaces: [{ns}]
  kinds: [StatefulSet, DaemonSet]
sinks:
  - {{name: hook, type: webhook, url: "{url}"}}
defaults:
  dedup_window: 0s
  recovery_window: 1s
rules:
  - name: stuck-rollouts
    match: {{kinds: [StatefulSet, DaemonSet], to: [Progressing], for: {wait}}}
    sinks: [hook]
    send_resolved: true
"""
LABELS = {"app": "db"}


def _template(*, pullable: bool, revision: str) -> dict[str, Any]:
    labels = {**LABELS, "revision": revision}
    image = "busybox:1.36"
    if not pullable:
        labels["kube-notifier.test/stage"] = "image-pull"
        image = "registry.invalid/db:broken"
    return {
        "metadata": {"labels": labels},
        "spec": {
            "containers": [{"name": "main", "image": image}],
            "nodeSelector": {"type": "kwok"},
        },
    }


def _statefulset(kube: Kube, ns: str, name: str) -> None:
    spec = {"replicas": 1, "serviceName": name, "selector": {"matchLabels": {"set": name}},
            "template": _template(pullable=True, revision="1")}  # fmt: skip
    spec["template"]["metadata"]["labels"]["set"] = name
    kube.apps.create_namespaced_stateful_set(ns, {"metadata": {"name": name}, "spec": spec})


def _daemonset(kube: Kube, ns: str, name: str) -> None:
    spec = {"selector": {"matchLabels": {"set": name}},
            "template": _template(pullable=True, revision="1")}  # fmt: skip
    spec["template"]["metadata"]["labels"]["set"] = name
    kube.apps.create_namespaced_daemon_set(ns, {"metadata": {"name": name}, "spec": spec})


def _roll(kube: Kube, ns: str, kind: str, name: str, *, pullable: bool, revision: str) -> None:
    template = _template(pullable=pullable, revision=revision)
    template["metadata"]["labels"]["set"] = name
    patch = {"spec": {"template": template}}
    if kind == "StatefulSet":
        kube.apps.patch_namespaced_stateful_set(name, ns, patch)
    else:
        kube.apps.patch_namespaced_daemon_set(name, ns, patch)


def _rolled_out(kube: Kube, ns: str) -> bool:
    """Every StatefulSet and DaemonSet in ``ns`` runs its current template, ready."""
    for sts in kube.apps.list_namespaced_stateful_set(ns).items:
        status = sts.status
        if status.observed_generation != sts.metadata.generation or status.ready_replicas != 1:
            return False
        if status.update_revision != status.current_revision:
            return False
    for ds in kube.apps.list_namespaced_daemon_set(ns).items:
        ds_status = ds.status
        done = ds_status.updated_number_scheduled == ds_status.desired_number_scheduled
        ready = ds_status.number_available == ds_status.desired_number_scheduled > 0
        if ds_status.observed_generation != ds.metadata.generation or not (done and ready):
            return False
    return True


def _told(receiver: WebhookServer) -> Counter[tuple[str, str]]:
    """(object name, status) -> how many accepted notifications said so."""
    told: Counter[tuple[str, str]] = Counter()
    for request in receiver.received():
        if request.status == 200:
            body = request.json()
            told[(body["object"]["name"], body["status"])] += 1
    return told


def _cancelled(service: ServiceProcess) -> float:
    text = service.get("/metrics")[1]
    found = re.search(
        r'kube_notifier_rules_suppressed_total\{reason="pending_cancelled"\} (\S+)', text
    )
    return float(found.group(1)) if found else 0.0


def _timer_rows(state: Path) -> dict[str, bool]:
    """Object key -> fired, for the timers the state file holds."""
    with sqlite3.connect(f"file:{state}?mode=ro", uri=True, timeout=5) as conn:
        return {key: bool(fired) for key, fired in conn.execute("SELECT key, fired FROM timers")}


def _service(config: Path, plane: ControlPlane, state: Path) -> ServiceProcess:
    service = ServiceProcess(config, plane.kubeconfig, state).start()
    service.wait_ready(60)
    service.wait_for_output(lambda out: "initial list acted on" in out, timeout=60)
    return service


@pytest.mark.timeout(300)
def test_stuck_rollouts_are_told_once_after_for_and_a_quick_one_never(
    full_cluster: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(full_cluster)
    ns = kube.namespace("stuck")
    _statefulset(kube, ns, "quick")
    _statefulset(kube, ns, "db")
    _daemonset(kube, ns, "agent")
    until(lambda: _rolled_out(kube, ns), 120, "the first rollouts")
    config, state = tmp_path / "config.yaml", tmp_path / "state.db"
    config.write_text(CONFIG.format(ns=ns, url=receiver.url, wait="20s"))
    service = _service(config, full_cluster, state)
    try:
        rolled = time.monotonic()
        _roll(kube, ns, "StatefulSet", "quick", pullable=True, revision="2")
        _roll(kube, ns, "StatefulSet", "db", pullable=False, revision="2")
        _roll(kube, ns, "DaemonSet", "agent", pullable=False, revision="2")
        until(lambda: _cancelled(service) >= 1, 60, "the quick rollout's timer cancelled")
        receiver.wait_for(lambda _: len(_told(receiver)) >= 2, timeout=90)
        assert time.monotonic() - rolled >= 20  # told after its for:, not on entering
        kube.apps.delete_namespaced_stateful_set("db", ns)  # a resolution: a barrier in order
        receiver.wait_for(lambda _: ("db", "resolved") in _told(receiver), timeout=60)
    finally:
        assert service.stop() == 0, service.output()
    assert _told(receiver) == {("db", "firing"): 1, ("agent", "firing"): 1, ("db", "resolved"): 1}
    summaries = [r.json()["summary"] for r in receiver.received()]
    assert any(re.search(r"StatefulSet \S+/db: .*Progressing.* for \d+s", s) for s in summaries)


@pytest.mark.timeout(300)
def test_a_sigkill_during_for_neither_loses_nor_doubles(
    full_cluster: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(full_cluster)
    ns = kube.namespace("killed")
    _statefulset(kube, ns, "first")
    _statefulset(kube, ns, "second")
    until(lambda: _rolled_out(kube, ns), 120, "the first rollouts")
    config, state = tmp_path / "config.yaml", tmp_path / "state.db"
    config.write_text(CONFIG.format(ns=ns, url=receiver.url, wait="15s"))

    # Killed while pending, back before it is due: told once, when due.
    service = _service(config, full_cluster, state)
    _roll(kube, ns, "StatefulSet", "first", pullable=False, revision="2")
    until(lambda: f"{ns}/first" in _timer_rows(state), 60, "the first timer saved")
    killed_at = time.monotonic()
    assert service.stop(signal.SIGKILL) == -signal.SIGKILL
    service = _service(config, full_cluster, state)
    receiver.wait_for(lambda _: ("first", "firing") in _told(receiver), timeout=60)
    assert time.monotonic() - killed_at < 60  # its time kept, not started again

    # Killed while pending, down until it is due: told once after the restart.
    _roll(kube, ns, "StatefulSet", "second", pullable=False, revision="2")
    until(lambda: f"{ns}/second" in _timer_rows(state), 60, "the second timer saved")
    assert service.stop(signal.SIGKILL) == -signal.SIGKILL
    due = time.time() + 15
    until(lambda: time.time() > due, 30, "the second timer due while down")
    assert ("second", "firing") not in _told(receiver)
    service = _service(config, full_cluster, state)
    try:
        receiver.wait_for(lambda _: ("second", "firing") in _told(receiver), timeout=30)
        kube.apps.delete_namespaced_stateful_set("first", ns)
        receiver.wait_for(lambda _: ("first", "resolved") in _told(receiver), timeout=60)
    finally:
        assert service.stop() == 0, service.output()
    told = _told(receiver)
    assert told == {("first", "firing"): 1, ("second", "firing"): 1, ("first", "resolved"): 1}
