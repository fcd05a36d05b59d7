"""Hot reload from the ConfigMap, and two replicas under leader election, on the real API server."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from tests.controlplane.cluster import ControlPlane
from tests.integration.kube import Kube, in_parallel
from tests.integration.service import ServiceProcess, keys_by_pod
from tests.integration.test_service import CONFIG, RULE_BY_TEAM, _crashloop
from tests.support.webhook_server import WebhookServer

pytestmark = pytest.mark.integration

RULE_FOR_SERVICES = """
  - name: services
    match:
      kinds: [Service]
      events: [added]
    sinks: [hook]
"""


def _config_map(kube: Kube, ns: str, text: str, *, create: bool = False) -> None:
    body = {"metadata": {"name": "rules"}, "data": {"config.yaml": text}}
    if create:
        kube.core.create_namespaced_config_map(ns, body)
    else:
        kube.core.replace_namespaced_config_map("rules", ns, body)


def _service(kube: Kube, ns: str, name: str) -> None:
    kube.core.create_namespaced_service(
        ns, {"metadata": {"name": name}, "spec": {"ports": [{"name": "http", "port": 80}]}}
    )


def test_configmap_edit_applies_and_a_broken_edit_keeps_the_last_good_rules(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("reload")
    base = CONFIG.format(ns=ns, url=receiver.url)
    path = tmp_path / "config.yaml"
    path.write_text(base)
    _config_map(kube, ns, base, create=True)
    service = ServiceProcess(
        path, control_plane.kubeconfig, "none", extra=["--config-map", f"{ns}/rules"]
    )
    service.start()
    try:
        service.wait_ready()
        _service(kube, ns, "before")  # no rule for Services yet
        time.sleep(1.5)
        assert receiver.received() == []

        _config_map(kube, ns, base + RULE_FOR_SERVICES)
        time.sleep(2.0)  # watched through the API: no kubelet sync delay
        _service(kube, ns, "after-edit")
        receiver.wait_for_count(1, timeout=15)

        _config_map(
            kube, ns, base + RULE_FOR_SERVICES + "  - name: broken\n    match: {kinds: [Pood]}\n"
        )
        deadline = time.monotonic() + 15
        reasons: list[str] = []
        while "ConfigRejected" not in reasons:
            assert time.monotonic() < deadline, "no Event for the rejected config"
            time.sleep(0.3)
            reasons = [e.reason or "" for e in kube.core.list_namespaced_event(ns).items]
        _service(kube, ns, "after-break")  # the last good rules still apply
        requests = receiver.wait_for_count(2, timeout=15)
        assert "after-break" in requests[-1].body.decode()
        _, metrics = service.get("/metrics")
        assert "kube_notifier_config_last_reload_successful 0.0" in metrics
    finally:
        assert service.stop() == 0, service.output()


@pytest.mark.timeout(240)
def test_two_replicas_one_delivers_and_the_standby_takes_over_on_sigkill(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("ha")
    path = tmp_path / "config.yaml"
    path.write_text(CONFIG.format(ns=ns, url=receiver.url))
    pods = [f"p{i:02d}" for i in range(40)]
    in_parallel(lambda n: kube.create_pod(ns, n), pods)
    lease = ["--leader-elect", "--lease-namespace", ns, "--lease-duration", "6"]
    replicas = [
        ServiceProcess(
            path,
            control_plane.kubeconfig,
            tmp_path / f"state-{i}.db",
            extra=[*lease, "--identity", f"replica-{i}"],
        ).start()
        for i in range(2)
    ]
    try:
        for replica in replicas:
            replica.wait_ready()
        time.sleep(3)
        leaders = [
            r for r in replicas if "kube_notifier_leader_is_leader 1.0" in r.get("/metrics")[1]
        ]
        assert len(leaders) == 1
        leader = leaders[0]
        standby = next(r for r in replicas if r is not leader)

        in_parallel(lambda n: _crashloop(kube, ns, n), pods[:20])
        receiver.wait_for(lambda reqs: len(keys_by_pod(receiver)) >= 20, timeout=30)
        killed_at = time.monotonic()
        assert leader.proc is not None
        leader.proc.send_signal(signal.SIGKILL)
        leader.proc.wait(10)
        in_parallel(lambda n: _crashloop(kube, ns, n), pods[20:])  # during the gap

        deadline = time.monotonic() + 30
        while "kube_notifier_leader_is_leader 1.0" not in standby.get("/metrics")[1]:
            assert time.monotonic() < deadline, "the standby never took over"
            time.sleep(0.2)
        takeover = time.monotonic() - killed_at
        receiver.wait_for(lambda reqs: len(keys_by_pod(receiver)) >= 40, timeout=30)
        keys = keys_by_pod(receiver)
        assert set(pods) <= set(keys)
        assert all(len(k) == 1 for name, k in keys.items() if name in pods), keys
        print(f"takeover after SIGKILL: {takeover:.1f}s; deliveries: {len(receiver.received())}")
        assert takeover < 6 + 3  # the lease duration plus one retry period and some slack
    finally:
        for replica in replicas:
            if replica.proc is not None and replica.proc.poll() is None:
                replica.stop()


SINK_AUDIT = """
  - name: audit
    type: webhook
    url: {url}
"""
RULE_AUDIT = """
  - name: audit
    match:
      kinds: [Service]
      events: [added]
    sinks: [audit]
    continue: true
"""


def reloads(log: str) -> int:
    """Reloads that changed the config (the first load says "loaded")."""
    return log.count(" reloaded (sha256")


def _services_seen(server: WebhookServer) -> list[str]:
    return [r.json()["object"]["name"] for r in server.received() if r.status == 200]


def test_a_reload_adds_moves_and_removes_sinks_without_a_restart(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(control_plane)
    ns = kube.namespace("sinks")
    path = tmp_path / "config.yaml"

    def write(hook_url: str, *, audit: str | None, extra_sink: str = "") -> None:
        text = CONFIG.format(ns=ns, url=hook_url)
        if audit is not None:
            text += RULE_AUDIT
            text = text.replace("rules:", SINK_AUDIT.format(url=audit).lstrip("\n") + "rules:")
        path.write_text(text.replace("rules:", extra_sink + "rules:") + RULE_FOR_SERVICES)

    with WebhookServer() as moved:
        write(receiver.url, audit=None)
        service = ServiceProcess(path, control_plane.kubeconfig, tmp_path / "state.db").start()
        try:
            service.wait_ready()
            _service(kube, ns, "first")
            receiver.wait_for(lambda _: _services_seen(receiver) == ["first"], timeout=15)

            # hook moves to another receiver; a new sink and its rule arrive together
            write(moved.url, audit=receiver.url)
            service.wait_for_output(lambda log: reloads(log) == 1)
            _service(kube, ns, "second")
            moved.wait_for(lambda _: _services_seen(moved) == ["second"], timeout=15)
            receiver.wait_for(lambda _: _services_seen(receiver) == ["first", "second"])

            # a sink that cannot be built rejects the whole edit: the last good config runs
            broken = "  - {name: bad, type: webhook, url_file: /nonexistent/url}\n"
            write(moved.url, audit=None, extra_sink=broken)
            service.wait_for_output(lambda log: "rejected" in log)
            _service(kube, ns, "third")
            moved.wait_for(lambda _: _services_seen(moved) == ["second", "third"], timeout=15)
            receiver.wait_for(lambda _: _services_seen(receiver)[-1] == "third", timeout=15)

            # the audit sink and its rule leave together
            write(moved.url, audit=None)
            service.wait_for_output(lambda log: reloads(log) == 2)
            _service(kube, ns, "fourth")
            moved.wait_for(lambda _: _services_seen(moved)[-1] == "fourth", timeout=15)
            time.sleep(1.0)
            assert _services_seen(receiver) == ["first", "second", "third"]
            assert "restart" not in service.output()
            assert "unknown sink" not in service.output()
        finally:
            assert service.stop() == 0, service.output()
    assert "nonexistent" in service.output()  # the rejection names the file it could not read


def _readiness_checks(service: ServiceProcess) -> dict[str, bool]:
    return {c["name"]: c["ok"] for c in json.loads(service.get("/readyz")[1])["checks"]}


def test_a_reload_starts_the_namespace_watch_and_is_refused_while_namespaces_are_not_readable(
    control_plane: ControlPlane, receiver: WebhookServer, tmp_path: Path
) -> None:
    kube = Kube(control_plane)
    payments, other = kube.namespace("pay"), kube.namespace("other")
    kube.core.patch_namespace(payments, {"metadata": {"labels": {"team": "payments"}}})
    user = f"reader-{payments}"
    control_plane.kubectl_apply(_reader("object-reader", [("", "pods"), ("", "services")]))
    control_plane.kubectl_apply(_reader("deployment-reader", [("apps", "deployments")]))
    for ns in (payments, other):  # may read what it watches, not namespaces
        for role in ("object-reader", "deployment-reader"):
            control_plane.kubectl_apply(_binding("RoleBinding", user, role, ns))
        kube.create_pod(ns, "api")
    base = (
        f"watch: {{namespaces: [{payments}, {other}]}}\n"
        f"sinks: [{{name: hook, type: webhook, url: '{receiver.url}'}}]\n"
        "rules:\n  - {name: deletes, match: {events: [deleted]}, sinks: [hook]}\n"
    )
    path = tmp_path / "config.yaml"
    path.write_text(base)
    service = ServiceProcess(path, control_plane.kubeconfig_for(user), "none").start()
    try:
        service.wait_ready()
        assert "synced-namespace-labels" not in _readiness_checks(service)

        path.write_text(base + RULE_BY_TEAM)
        service.wait_for_output(lambda log: "not allowed to list namespaces" in log)
        assert "rejected" in service.output()

        control_plane.kubectl_apply(_reader("namespace-reader", [("", "namespaces")]))
        control_plane.kubectl_apply(_binding("ClusterRoleBinding", user, "namespace-reader"))
        path.write_text(base + RULE_BY_TEAM + "# namespaces readable now\n")
        service.wait_for_output(lambda log: reloads(log) == 1)
        assert _readiness_checks(service)["synced-namespace-labels"] is True
        _crashloop(kube, other, "api")
        _crashloop(kube, payments, "api")
        requests = receiver.wait_for_count(1, timeout=20)
        time.sleep(1.0)
        assert len(receiver.received()) == 1 and payments in requests[0].body.decode()
        assert "restart" not in service.output()
    finally:
        assert service.stop() == 0, service.output()


def _reader(name: str, resources: list[tuple[str, str]]) -> dict[str, Any]:
    """A ClusterRole that may list and watch ``(api group, resource)`` pairs."""
    rules = [
        {"apiGroups": [group], "resources": [resource], "verbs": ["get", "list", "watch"]}
        for group, resource in resources
    ]
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": name},
        "rules": rules,
    }


def _binding(kind: str, user: str, role: str, namespace: str | None = None) -> dict[str, Any]:
    metadata = {"name": f"{user}-{role}", **({"namespace": namespace} if namespace else {})}
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": kind,
        "metadata": metadata,
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}],
    }
