"""Nodes, PersistentVolumeClaims and HorizontalPodAutoscalers: states, signals, severities."""

from __future__ import annotations

from typing import Any

import msgspec

from notifier.kinds.hpa import HorizontalPodAutoscaler
from notifier.kinds.node import Node
from notifier.kinds.pvc import PersistentVolumeClaim
from notifier.objects import KubeObject
from notifier.origin import Origin
from notifier.rules.facts.contexts import single_context
from notifier.transitions.detecting import detect
from notifier.transitions.model import Transition
from notifier.transitions.states import states_of


def _detect(old: KubeObject, new: KubeObject) -> Transition:
    found = detect(old, new, origin=Origin.LIVE, observed_at=1.0, correlation_id="t")
    assert found is not None
    return found


def _node(ready: str, *pressure: str, cordoned: bool = False, rv: str = "1") -> Node:
    reason = "KubeletReady" if ready == "True" else "NodeStatusUnknown"
    message = "Kubelet stopped posting node status."
    conditions = [{"type": "Ready", "status": ready, "reason": reason, "message": message}]
    conditions += [{"type": name, "status": "True", "reason": name} for name in pressure]
    doc = {
        "metadata": {"name": "worker-1", "uid": "n1", "resourceVersion": rv},
        "spec": {"unschedulable": cordoned},
        "status": {"conditions": conditions, "nodeInfo": {"kubeletVersion": "v1.35.4"}},
    }
    return msgspec.convert(doc, type=Node)


def test_a_node_that_stops_reporting_goes_unknown_and_one_that_fails_not_ready() -> None:
    assert states_of(_node("True")) == {"Ready"}
    assert _detect(_node("True"), _node("Unknown")).entered == {"Unknown"}
    lost = _detect(_node("True"), _node("False", "MemoryPressure"))
    assert lost.entered == {"NotReady", "MemoryPressure"} and lost.left == {"Ready"}
    context = single_context(lost, cluster="", rule="r", owner=None)
    assert context["severity"] == "critical"
    assert context["reason"] == "NodeStatusUnknown"


def test_a_cordon_is_unschedulable_and_a_heartbeat_is_no_news() -> None:
    assert _detect(_node("True"), _node("True", cordoned=True)).entered == {"Unschedulable"}
    same = detect(_node("True"), _node("True", rv="2"), origin=Origin.LIVE, observed_at=1.0,
                  correlation_id="t")  # fmt: skip
    assert same is None


def _pvc(phase: str, storage: str = "10Gi") -> PersistentVolumeClaim:
    doc = {
        "metadata": {"name": "data-db-0", "namespace": "data", "uid": "p1"},
        "spec": {"storageClassName": "standard", "volumeName": "pv-1"},
        "status": {"phase": phase, "capacity": {"storage": storage}},
    }
    return msgspec.convert(doc, type=PersistentVolumeClaim)


def test_a_claim_that_loses_its_volume_is_lost_and_critical() -> None:
    lost = _detect(_pvc("Bound"), _pvc("Lost"))
    assert lost.entered == {"Lost"}
    assert single_context(lost, cluster="", rule="r", owner=None)["severity"] == "critical"
    assert "Resized" in _detect(_pvc("Bound"), _pvc("Bound", "20Gi")).signals
    assert states_of(_pvc("")) == {"Pending"}


def _hpa(current: int, desired: int, *conditions: dict[str, str]) -> HorizontalPodAutoscaler:
    doc: dict[str, Any] = {
        "metadata": {"name": "web", "namespace": "shop", "uid": "h1"},
        "spec": {"minReplicas": 2, "maxReplicas": 10, "scaleTargetRef": {"kind": "Deployment"}},
        "status": {"currentReplicas": current, "desiredReplicas": desired,
                   "conditions": list(conditions)},
    }  # fmt: skip
    return msgspec.convert(doc, type=HorizontalPodAutoscaler)


def test_an_autoscaler_at_its_maximum_or_without_metrics() -> None:
    limited = {"type": "ScalingLimited", "status": "True", "reason": "TooManyReplicas"}
    blind = {"type": "ScalingActive", "status": "False", "reason": "FailedGetResourceMetric",
             "message": "unable to get metrics"}  # fmt: skip
    maxed = _detect(_hpa(8, 8), _hpa(10, 12, limited))
    assert maxed.entered == {"AtMaxReplicas"} and "Scaled" in maxed.signals
    no_metrics = _detect(_hpa(3, 3), _hpa(3, 3, blind))
    assert no_metrics.entered == {"MetricsUnavailable"}
    context = single_context(no_metrics, cluster="", rule="r", owner=None)
    assert (context["reason"], context["severity"]) == ("FailedGetResourceMetric", "warning")
