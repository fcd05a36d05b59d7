"""``enrich: [changes]`` against the real control plane: the likely cause in the message.

The controller-manager makes the ReplicaSets of each rollout, kwok runs the
Pods (a ``kube-notifier.test/stage: crashloop`` label makes one crash-loop),
and the service tells the webhook; managedFields are the API server's own.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client

from notifier.enrichment.config import EnrichmentConfig
from notifier.enrichment.enricher import Enricher
from notifier.enrichment.fetching import ContextFetcher
from notifier.enrichment.reads import METADATA_ONLY
from notifier.enrichment.telling import change_fields
from notifier.kinds.registry import KINDS
from notifier.notifications import ContextRequest
from notifier.queue.rate_limiters import TokenBucket
from notifier.source.access import cluster_access
from notifier.source.client import RawClient
from tests.controlplane.cluster import ControlPlane
from tests.integration.kube import UNSCHEDULED, Kube
from tests.integration.service import ServiceProcess
from tests.integration.test_enrichment import _check as check_rules
from tests.support.webhook_server import WebhookServer

pytestmark = [pytest.mark.integration, pytest.mark.fullcluster]

SECRET_VALUES = ("s3cr3t-never-shown-8d1f", "s3cr3t-rotated-2c7a")
CONFIG = """
cluster_name: test
watch:
  namespaces: [{ns}]
  kinds: [Pod]
sinks:
  - {{name: hook, type: webhook, url: "{url}"}}
enrichment:
  timeout_seconds: 10
  changes: {{secrets: true}}
rules:
  - name: crashloops
    match: {{kinds: [Pod], to: [CrashLoopBackOff]}}
    sinks: [hook]
    enrich: [changes]
"""
CRASH = {"kube-notifier.test/stage": "crashloop"}


def deployment(name: str, *, reads_config: bool = False) -> dict[str, Any]:
    main: dict[str, Any] = {"name": "main", "image": "busybox:1.36"}
    if reads_config:
        main["envFrom"] = [{"configMapRef": {"name": "app-config"}}]
        secret = {"secretKeyRef": {"name": "db", "key": "password"}}
        main["env"] = [{"name": "DB_PASSWORD", "valueFrom": secret}]
    labels = {"app": name}
    template = {"metadata": {"labels": labels}, "spec": {"containers": [main]}}
    spec = {"replicas": 1, "selector": {"matchLabels": labels}, "template": template}
    return {"metadata": {"name": name}, "spec": spec}


def running_pod(kube: Kube, ns: str, app: str, timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for pod in kube.core.list_namespaced_pod(ns, label_selector=f"app={app}").items:
            if pod.status.phase == "Running" and pod.metadata.deletion_timestamp is None:
                return str(pod.metadata.name)
        time.sleep(0.2)
    raise AssertionError(f"no Pod of {app} ran on a kwok node")


def told_about(receiver: WebhookServer, apps: list[str], timeout: float) -> dict[str, Any]:
    """The first message about a Pod of each app, by app."""

    def by_app() -> dict[str, Any]:
        found: dict[str, Any] = {}
        for request in receiver.received():
            body = request.json()
            app = str(body["object"]["name"]).split("-", 1)[0]
            found.setdefault(app, body)
        return found

    receiver.wait_for(lambda _: set(apps) <= set(by_app()), timeout)
    return by_app()


def test_the_message_names_the_rollout_the_edited_configmap_or_says_nothing_changed(
    full_cluster: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(full_cluster)
    ns = kube.namespace("changes")
    kube.core.create_namespaced_config_map(
        ns, {"metadata": {"name": "app-config"}, "data": {"a": "1", "b": "2"}}
    )
    kube.core.create_namespaced_secret(
        ns, {"metadata": {"name": "db"}, "stringData": {"password": SECRET_VALUES[0]}}
    )
    for name, reads in (("rolled", False), ("configured", True), ("quiet", False)):
        kube.apps.create_namespaced_deployment(ns, deployment(name, reads_config=reads))
    pods = {app: running_pod(kube, ns, app) for app in ("rolled", "configured", "quiet")}
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG.format(ns=ns, url=receiver.url))
    service = ServiceProcess(config, full_cluster.kubeconfig, "none").start()
    try:
        service.wait_ready()
        kube.core.patch_namespaced_secret(
            "db", ns, {"stringData": {"password": SECRET_VALUES[1]}}, field_manager="vault-sync"
        )
        rolled = time.time()
        rollout = {"spec": {"template": {"metadata": {"labels": CRASH}, "spec": {
            "containers": [{"name": "main", "image": "busybox:crash"}]}}}}  # fmt: skip
        kube.apps.patch_namespaced_deployment("rolled", ns, rollout, field_manager="kubectl-set")
        kube.core.patch_namespaced_config_map(
            "app-config", ns, {"data": {"b": "3"}}, field_manager="kubectl-edit"
        )
        for app in ("configured", "quiet"):
            kube.core.patch_namespaced_pod(pods[app], ns, {"metadata": {"labels": CRASH}})
        told = told_about(receiver, ["rolled", "configured", "quiet"], timeout=90)
    finally:
        assert service.stop() == 0
    every = str([request.body for request in receiver.received()])
    assert not any(value in every for value in SECRET_VALUES)

    changes = {app: body["context"]["changes"] for app, body in told.items()}
    cause = changes["rolled"]["likely_cause"]
    assert cause.startswith("rollout of Deployment/rolled to revision 2, "), cause
    assert cause.endswith(
        "s before, by kubectl (kubectl-set): image of main busybox:1.36 -> busybox:crash"
    ), cause
    seconds = changes["rolled"]["rollout"]["seconds_before"]
    assert 0 <= seconds <= time.time() - rolled + 1

    cause = changes["configured"]["likely_cause"]
    assert cause.startswith("ConfigMap app-config changed "), cause
    assert cause.endswith("s before, by kubectl (kubectl-edit): keys b"), cause
    assert "3" not in cause.split("keys")[1]
    [secret] = [c for c in changes["configured"]["configs"] if c["kind"] == "Secret"]
    assert (secret["manager"], secret["keys"]) == ("vault-sync", ["password"])  # names only

    assert changes["quiet"]["likely_cause"] == "no change found in the last 1h"
    assert changes["quiet"]["rollout"] is None and changes["quiet"]["configs"] == []
    print(  # the figures docs/enrichment.md gives: `pytest -s` shows them
        "measured: requests",
        {app: c["requests"] for app, c in changes.items()},
        "fetched_ms",
        {app: body["context"]["fetched_ms"] for app, body in told.items()},
    )


class RecordingClient(RawClient):
    """The service's client, keeping every GET's path, Accept header and answer."""

    def __init__(self, plane: ControlPlane) -> None:
        super().__init__(cluster_access(str(plane.kubeconfig), None))
        self.seen: list[tuple[str, str | None, bytes]] = []

    def get_bounded(
        self,
        path: str,
        query: dict[str, str],
        *,
        timeout: float,
        max_bytes: int,
        accept: str | None = None,
    ) -> bytes:
        data = super().get_bounded(path, query, timeout=timeout, max_bytes=max_bytes, accept=accept)
        self.seen.append((path, accept, data))
        return data


def _fetcher(client: RawClient, *, wall: Callable[[], float] = time.time) -> ContextFetcher:
    settings = EnrichmentConfig.model_validate({"changes": {"secrets": True}})
    bucket = TokenBucket(settings.requests_per_second, settings.burst, time.monotonic)
    return ContextFetcher(client, settings, bucket=bucket, wall=wall, kinds=KINDS)


def _pod_reading_secrets(kube: Kube, ns: str) -> ContextRequest:
    body = kube.pod_body("reader")
    main = body["spec"]["containers"][0]
    main["envFrom"] = [{"secretRef": {"name": "db"}}, {"configMapRef": {"name": "app-config"}}]
    body["spec"]["volumes"] = [{"name": "creds", "secret": {"secretName": "db"}}]
    made = kube.core.create_namespaced_pod(ns, body)
    return ContextRequest(("changes",), "Pod", ns, "reader", made.metadata.uid, "1")


def test_a_secret_is_read_as_metadata_only_and_its_data_is_in_no_answer_or_message(
    full_cluster: ControlPlane,
) -> None:
    kube = Kube(full_cluster)
    ns = kube.namespace("secrets")
    kube.core.create_namespaced_config_map(
        ns, {"metadata": {"name": "app-config"}, "data": {"a": SECRET_VALUES[0]}}
    )
    kube.core.create_namespaced_secret(
        ns, {"metadata": {"name": "db"}, "stringData": {"password": SECRET_VALUES[0]}}
    )
    request = _pod_reading_secrets(kube, ns)
    kube.core.patch_namespaced_secret(
        "db", ns, {"stringData": {"password": SECRET_VALUES[1]}}, field_manager="vault-sync"
    )
    client = RecordingClient(full_cluster)
    context = _fetcher(client).fetch(request, deadline=time.monotonic() + 10)
    assert context.changes is not None and context.problems == ()
    assert context.changes.likely_cause.startswith("Secret db changed "), context.changes
    secret_reads = [accept for path, accept, _ in client.seen if "/secrets/" in path]
    assert secret_reads == [METADATA_ONLY]
    config_reads = [accept for path, accept, _ in client.seen if "/configmaps/" in path]
    assert config_reads == [METADATA_ONLY]  # a ConfigMap's values are not fetched either
    answers = b"".join(data for _, _, data in client.seen)
    shown = str(change_fields(context.changes))
    for value in SECRET_VALUES:
        assert value.encode() not in answers and value not in shown
        assert base64.b64encode(value.encode()) not in answers


def test_a_change_outside_the_window_is_not_blamed(full_cluster: ControlPlane) -> None:
    kube = Kube(full_cluster)
    ns = kube.namespace("window")
    kube.core.create_namespaced_config_map(
        ns, {"metadata": {"name": "app-config"}, "data": {"a": "1"}}
    )
    kube.core.create_namespaced_secret(ns, {"metadata": {"name": "db"}})
    request = _pod_reading_secrets(kube, ns)
    kube.core.patch_namespaced_config_map(
        "app-config", ns, {"data": {"b": "3"}}, field_manager="kubectl-edit"
    )
    now = _fetcher(RecordingClient(full_cluster))
    later = _fetcher(RecordingClient(full_cluster), wall=lambda: time.time() + 2 * 3600)
    found = now.fetch(request, deadline=time.monotonic() + 10).changes
    assert found is not None and found.likely_cause.startswith("ConfigMap app-config changed")
    found = later.fetch(request, deadline=time.monotonic() + 10).changes
    assert found is not None and found.likely_cause == "no change found in the last 1h"


def _pods_of(kube: Kube, ns: str, count: int, timeout: float = 120) -> list[Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pods = kube.core.list_namespaced_pod(ns).items
        if len(pods) >= count:
            return list(pods)
        time.sleep(0.5)
    raise AssertionError(f"the controller-manager did not make {count} Pods")


def test_two_hundred_pods_failing_at_once_are_told_within_the_deadline(
    full_cluster: ControlPlane,
) -> None:
    kube = Kube(full_cluster)
    ns = kube.namespace("wave")
    body = deployment("wave")
    body["spec"]["replicas"] = 200
    body["spec"]["template"]["spec"]["schedulerName"] = UNSCHEDULED  # made, never run
    kube.apps.create_namespaced_deployment(ns, body)
    pods = _pods_of(kube, ns, 200)
    asked = [
        ContextRequest(("changes",), "Pod", ns, pod.metadata.name, pod.metadata.uid,
                       pod.metadata.resource_version,
                       owner=("ReplicaSet", pod.metadata.owner_references[0].name))
        for pod in pods
    ]  # fmt: skip
    client = RecordingClient(full_cluster)
    settings = EnrichmentConfig()  # 3 s, 20 requests a second, a burst of 40
    enricher = Enricher(client, settings, kinds=KINDS)
    started = time.monotonic()
    try:
        for request in asked:
            enricher.prefetch(request)
        contexts = [enricher.context_for(request) for request in asked]
    finally:
        enricher.stop()
    took = time.monotonic() - started
    assert took <= settings.timeout_seconds + 1.0, took  # the deadline, its grace, a busy CI
    told = [context for context in contexts if context.changes is not None]
    bare = [context for context in contexts if context.changes is None]
    assert told, "no notification got its changes"
    assert all(context.problems for context in bare)  # each says why it has none
    print(  # the figures docs/enrichment.md gives: `pytest -s` shows them
        f"measured: {len(asked)} notifications in {took:.2f} s; {len(told)} with changes; "
        f"{len(client.seen)} requests ({len(client.seen) / len(asked):.2f} each); "
        f"fetch ms p50 {sorted(c.fetched_ms for c in told)[len(told) // 2]}"
    )


CHANGES_RULES = """
sinks: [{name: out, type: console}]
enrichment: {changes: {secrets: true}}
rules: [{name: crashes, match: {kinds: [Pod]}, sinks: [out], enrich: [changes]}]
"""


def test_rules_check_says_which_rbac_a_service_account_lacks_for_changes(
    control_plane: ControlPlane, tmp_path: Path
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("rbac")
    kube.core.create_namespaced_service_account(ns, {"metadata": {"name": "notifier"}})
    config = tmp_path / "config.yaml"
    config.write_text(CHANGES_RULES)
    code, out = check_rules(control_plane, config, f"{ns}/notifier")
    assert code == 1, out
    who = f"rules crashes ask for changes, but service account {ns}/notifier may not"
    for lacking in ("get pods", "list replicasets", "list controllerrevisions",
                    "get configmaps", "list events", "get secrets"):  # fmt: skip
        assert f"{who} {lacking} (cluster-wide)" in out, out
    rbac = client.RbacAuthorizationV1Api(kube.api)
    rules = [{"apiGroups": [""], "resources": ["pods", "configmaps"], "verbs": ["get", "list"]},
             {"apiGroups": [""], "resources": ["events"], "verbs": ["list"]},
             {"apiGroups": ["apps"], "resources": ["replicasets", "controllerrevisions"],
              "verbs": ["get", "list"]}]  # fmt: skip
    rbac.create_cluster_role({"metadata": {"name": f"{ns}-changes"}, "rules": rules})
    subject = {"kind": "ServiceAccount", "name": "notifier", "namespace": ns}
    role = {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
            "name": f"{ns}-changes"}  # fmt: skip
    rbac.create_cluster_role_binding(
        {"metadata": {"name": f"{ns}-changes"}, "roleRef": role, "subjects": [subject]}
    )
    try:
        code, out = check_rules(control_plane, config, f"{ns}/notifier")
    finally:
        rbac.delete_cluster_role_binding(f"{ns}-changes")
        rbac.delete_cluster_role(f"{ns}-changes")
    assert code == 1, out
    assert [line.split(": ", 1)[1] for line in out.splitlines() if "may not" in line] == [
        f"{who} get secrets (cluster-wide)"
    ], out
