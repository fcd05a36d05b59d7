"""The kinds beyond Pods, Deployments and Services, against the real control plane.

The controller-manager's own controllers (job, statefulset, daemonset,
persistentvolume binder, horizontal-pod-autoscaler) write the status the
states are read from; kwok runs the pods on its fake nodes. The Node test
writes its own Node's status (kwok does not manage it) and taints it, so no
other test's pod lands there.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from kubernetes import client

from notifier.objects import Kind, ObjectKey
from tests.controlplane.cluster import ControlPlane
from tests.integration.harness import Pipeline, pipeline
from tests.integration.kube import Kube

pytestmark = [pytest.mark.integration, pytest.mark.fullcluster]
FAIL_LABELS = {"app": "batch", "kube-notifier.test/stage": "fail"}


def _entered(pipe: Pipeline, kind: Kind, key: str, state: str, timeout: float = 60) -> Any:
    """The first transition of ``key`` that entered ``state`` (or carried it as a signal)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for transition in pipe.stage.all():
            if (transition.kind, transition.key) != (kind, key):
                continue
            if state in transition.entered or state in transition.signals:
                return transition
        time.sleep(0.05)
    seen = [
        (t.event, sorted(t.new_states)) for t in pipe.stage.by_key.get((kind, ObjectKey(key)), [])
    ]
    raise AssertionError(f"{kind} {key} never entered {state} in {timeout}s; saw {seen}")


def _template(labels: dict[str, str]) -> dict[str, Any]:
    return {
        "metadata": {"labels": labels},
        "spec": {
            "containers": [{"name": "main", "image": "busybox:1.36"}],
            "restartPolicy": "Never",
            "nodeSelector": {"type": "kwok"},
        },
    }


def test_a_job_whose_pod_fails_past_its_backoff_limit_is_failed(full_cluster: ControlPlane) -> None:
    kube = Kube(full_cluster)
    ns = kube.namespace("job")
    batch = client.BatchV1Api(kube.api)
    with pipeline(full_cluster, kinds=(Kind.JOB,), namespaces=[ns]) as pipe:
        pipe.wait_synced()
        batch.create_namespaced_job(
            ns,
            {
                "metadata": {"name": "nightly"},
                "spec": {"backoffLimit": 0, "template": _template(FAIL_LABELS)},
            },
        )
        failed = _entered(pipe, Kind.JOB, f"{ns}/nightly", "Failed", timeout=90)
    condition = next(c for c in failed.new.status.conditions if c.type == "Failed")
    assert condition.reason == "BackoffLimitExceeded"
    assert "Active" in failed.old_states or "PodFailed" in failed.signals


def test_a_statefulset_and_a_daemonset_roll_out_to_complete(full_cluster: ControlPlane) -> None:
    kube = Kube(full_cluster)
    ns = kube.namespace("rollout")
    labels = {"app": "db"}
    with pipeline(full_cluster, kinds=(Kind.STATEFULSET, Kind.DAEMONSET), namespaces=[ns]) as pipe:
        pipe.wait_synced()
        template = _template(labels)
        template["spec"]["restartPolicy"] = "Always"
        selector = {"matchLabels": labels}
        kube.apps.create_namespaced_stateful_set(
            ns,
            {"metadata": {"name": "db"},
             "spec": {"replicas": 2, "serviceName": "db", "selector": selector,
                      "template": template}},
        )  # fmt: skip
        kube.apps.create_namespaced_daemon_set(
            ns,
            {"metadata": {"name": "agent"}, "spec": {"selector": selector, "template": template}},
        )
        _entered(pipe, Kind.STATEFULSET, f"{ns}/db", "Complete", timeout=90)
        _entered(pipe, Kind.DAEMONSET, f"{ns}/agent", "Complete", timeout=90)
        kube.apps.patch_namespaced_stateful_set("db", ns, {"spec": {"replicas": 3}})
        _entered(pipe, Kind.STATEFULSET, f"{ns}/db", "Scaled")


def _node(name: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "labels": {"kube-notifier.test/unmanaged": "true"}},
        "spec": {"taints": [{"key": "kube-notifier.test/unmanaged", "effect": "NoSchedule"}]},
    }


def _node_status(kube: Kube, name: str, ready: str, *pressure: str) -> None:
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    conditions = [{"type": "Ready", "status": ready, "reason": f"Test{ready}",
                   "lastHeartbeatTime": now, "lastTransitionTime": now}]  # fmt: skip
    conditions += [{"type": p, "status": "True", "reason": p, "lastHeartbeatTime": now,
                    "lastTransitionTime": now} for p in pressure]  # fmt: skip
    kube.core.patch_node_status(name, {"status": {"conditions": conditions}})


def test_a_node_that_goes_not_ready_and_is_cordoned(full_cluster: ControlPlane) -> None:
    kube = Kube(full_cluster)
    ns = kube.namespace("node")  # Nodes are watched cluster-wide even so
    name = f"lonely-{ns}"
    kube.core.create_node(_node(name))
    try:
        _node_status(kube, name, "True")
        with pipeline(full_cluster, kinds=(Kind.NODE,), namespaces=[ns]) as pipe:
            pipe.wait_synced()
            _node_status(kube, name, "False", "MemoryPressure")
            lost = _entered(pipe, Kind.NODE, name, "NotReady")
            assert lost.left == {"Ready"} and "MemoryPressure" in lost.entered
            kube.core.patch_node(name, {"spec": {"unschedulable": True}})
            _entered(pipe, Kind.NODE, name, "Unschedulable")
    finally:
        kube.core.delete_node(name)


def test_a_claim_binds_to_a_volume_and_an_autoscaler_without_metrics_says_so(
    full_cluster: ControlPlane,
) -> None:
    kube = Kube(full_cluster)
    ns = kube.namespace("pvc")
    volume = f"pv-{ns}"
    kube.core.create_persistent_volume(
        {"metadata": {"name": volume},
         "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                  "storageClassName": f"manual-{ns}", "hostPath": {"path": "/tmp/kn"}}}
    )  # fmt: skip
    autoscaling = client.AutoscalingV2Api(kube.api)
    try:
        with pipeline(full_cluster, kinds=(Kind.PVC, Kind.HPA), namespaces=[ns]) as pipe:
            pipe.wait_synced()
            kube.core.create_namespaced_persistent_volume_claim(
                ns,
                {"metadata": {"name": "data"},
                 "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": f"manual-{ns}",
                          "resources": {"requests": {"storage": "1Gi"}}}},
            )  # fmt: skip
            _entered(pipe, Kind.PVC, f"{ns}/data", "Bound")
            autoscaling.create_namespaced_horizontal_pod_autoscaler(
                ns,
                {"metadata": {"name": "web"},
                 "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment",
                                             "name": "absent"},
                          "minReplicas": 1, "maxReplicas": 3,
                          "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                                       "target": {"type": "Utilization",
                                                  "averageUtilization": 50}}}]}},
            )  # fmt: skip
            _entered(pipe, Kind.HPA, f"{ns}/web", "UnableToScale", timeout=90)
    finally:
        kube.core.delete_persistent_volume(volume)


def test_a_pod_that_cannot_be_scheduled_brings_one_warning_event(
    full_cluster: ControlPlane,
) -> None:
    kube = Kube(full_cluster)
    ns = kube.namespace("event")
    with pipeline(full_cluster, kinds=(Kind.EVENT,), namespaces=[ns]) as pipe:
        pipe.wait_synced()
        body = kube.pod_body("stranded", schedule=True)
        body["spec"]["nodeSelector"] = {"kube-notifier.test/no-such-node": "true"}
        kube.core.create_namespaced_pod(ns, body)
        deadline = time.monotonic() + 60
        warnings: list[Any] = []
        while not warnings:
            assert time.monotonic() < deadline, "no FailedScheduling event"
            warnings = [
                t for t in pipe.stage.all()
                if "Warning" in t.entered and t.new.reason == "FailedScheduling"
            ]  # fmt: skip
            time.sleep(0.05)
    [warning] = warnings
    assert warning.new.involved_object.name == "stranded"
    assert warning.new.involved_object.kind == "Pod"
