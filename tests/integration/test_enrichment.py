"""Context enrichment through the running service against the real control plane.

kwok serves the container logs (its kubelet API behind ``pods/log``, from the
files the test writes: ``ControlPlane.write_container_log``), the API server
proxies them, and the Warning Event and owners are real objects.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client

from tests.controlplane.cluster import ControlPlane
from tests.integration.kube import Kube
from tests.integration.service import ServiceProcess
from tests.support.webhook_server import WebhookServer

pytestmark = pytest.mark.integration

CONFIG = """
cluster_name: test
watch:
  namespaces: [{ns}]
  kinds: [Pod]
sinks:
  - {{name: hook, type: webhook, url: "{url}"}}
enrichment:
  timeout_seconds: 10
  log_lines: 5
  redact:
    - {{pattern: 'customer-[0-9]+', replacement: 'customer-#'}}
rules:
  - name: crashloops
    match: {{kinds: [Pod], to: [CrashLoopBackOff]}}
    sinks: [hook]
    enrich: [logs, events, owners]
"""

PREVIOUS_LOG = [
    "starting worker 1",
    "connecting to db with password=hunter2",
    "GET /orders Authorization: Bearer abcdefghijklmnopqrstuvwxyz",
    "order for customer-12345 failed",
    "loaded 3 plugins",
    "panic: runtime error: invalid memory address",
]


def _deployment(labels: dict[str, str]) -> dict[str, Any]:
    pod = {"metadata": {"labels": labels},
           "spec": {"containers": [{"name": "web", "image": "busybox:1.36"}]}}  # fmt: skip
    return {
        "metadata": {"name": "web"},
        "spec": {"replicas": 1, "selector": {"matchLabels": labels}, "template": pod},
    }


def _running_pod(kube: Kube, ns: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for pod in kube.core.list_namespaced_pod(ns).items:
            if pod.status.phase == "Running":
                return {"name": pod.metadata.name, "uid": pod.metadata.uid,
                        "owner": pod.metadata.owner_references[0].name}  # fmt: skip
        time.sleep(0.2)
    raise AssertionError("the Deployment's Pod never ran on a kwok node")


def _warning_event(kube: Kube, ns: str, pod: dict[str, Any]) -> None:
    involved = {"kind": "Pod", "namespace": ns, "name": pod["name"], "uid": pod["uid"]}
    kube.core.create_namespaced_event(ns, {
        "metadata": {"name": f"{pod['name']}.backoff"},
        "involvedObject": involved, "type": "Warning", "reason": "BackOff", "count": 4,
        "message": "Back-off restarting failed container web",
        "lastTimestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    })  # fmt: skip


@pytest.mark.fullcluster
def test_a_crash_loop_arrives_with_its_last_log_lines_redacted_events_and_owners(
    full_cluster: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    # The first crash is told while its instance is the current one (terminated, no restart
    # yet) or, once restarted, the previous one: both serve the crashed run's lines.
    full_cluster.write_container_log(PREVIOUS_LOG, previous=True)
    full_cluster.write_container_log(PREVIOUS_LOG, previous=False)
    kube = Kube(full_cluster)
    ns = kube.namespace("enrich")
    kube.apps.create_namespaced_deployment(ns, _deployment({"app": "web"}))
    pod = _running_pod(kube, ns)
    _warning_event(kube, ns, pod)
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG.format(ns=ns, url=receiver.url))
    service = ServiceProcess(config, full_cluster.kubeconfig, "none").start()
    try:
        service.wait_ready()
        labels = {"metadata": {"labels": {"kube-notifier.test/stage": "crashloop"}}}
        kube.core.patch_namespaced_pod(pod["name"], ns, labels)
        [told] = receiver.wait_for_count(1, timeout=60)
        metrics = service.get("/metrics")[1]
    finally:
        assert service.stop() == 0
    context = told.json()["context"]
    assert context["problems"] == []
    [log] = context["logs"]
    assert log["container"] == "web"
    assert log["lines"] == [
        "connecting to db with password=[REDACTED]",
        "GET /orders Authorization: Bearer [REDACTED]",
        "order for customer-# failed",
        "loaded 3 plugins",
        "panic: runtime error: invalid memory address",
    ]  # the last 5 (log_lines), every secret replaced before it left
    # Ours; the control plane may have warned of the Pod too (a FailedScheduling under load).
    [event] = [e for e in context["events"] if e["reason"] == "BackOff"]
    assert event["count"] == 4
    assert context["owners"] == [f"ReplicaSet/{pod['owner']}", "Deployment/web"]
    # The log, the event list, and one GET per owner (the Deployment's: has it an owner?).
    for part, requests in (("logs", 1), ("events", 1), ("owners", 2)):
        assert (
            f'kube_notifier_enrichment_api_requests_total{{outcome="ok",part="{part}"}} '
            f"{requests}.0" in metrics
        )


RULES = """
sinks: [{name: out, type: console}]
rules: [{name: crashes, match: {kinds: [Pod]}, sinks: [out], enrich: [logs, events]}]
"""


def _check(plane: ControlPlane, config: Path, account: str) -> tuple[int, str]:
    argv = [sys.executable, "-m", "notifier", "rules", "check", str(config),
            "--service-account", account, "--kubeconfig", str(plane.kubeconfig)]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    return done.returncode, done.stdout + done.stderr


def test_rules_check_says_which_rbac_a_service_account_lacks_for_enrich(
    control_plane: ControlPlane, tmp_path: Path
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("rbac")
    kube.core.create_namespaced_service_account(ns, {"metadata": {"name": "notifier"}})
    config = tmp_path / "config.yaml"
    config.write_text(RULES)
    code, out = _check(control_plane, config, f"{ns}/notifier")
    assert code == 1, out
    assert f"service account {ns}/notifier may not get pods/log (cluster-wide)" in out
    assert f"service account {ns}/notifier may not list events (cluster-wide)" in out
    rbac = client.RbacAuthorizationV1Api(kube.api)
    rules = [{"apiGroups": [""], "resources": ["pods/log"], "verbs": ["get"]},
             {"apiGroups": [""], "resources": ["events"], "verbs": ["list"]}]  # fmt: skip
    rbac.create_cluster_role({"metadata": {"name": f"{ns}-enrich"}, "rules": rules})
    subject = {"kind": "ServiceAccount", "name": "notifier", "namespace": ns}
    role = {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": f"{ns}-enrich"}
    rbac.create_cluster_role_binding(
        {"metadata": {"name": f"{ns}-enrich"}, "roleRef": role, "subjects": [subject]}
    )
    try:
        code, out = _check(control_plane, config, f"{ns}/notifier")
    finally:
        rbac.delete_cluster_role_binding(f"{ns}-enrich")
        rbac.delete_cluster_role(f"{ns}-enrich")
    assert code == 0, out
    assert "may not" not in out
