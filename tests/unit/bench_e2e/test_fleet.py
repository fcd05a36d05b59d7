"""The fleet's objects (counts, churn labels, statuses) and the background churn's schedule."""

from __future__ import annotations

from collections import Counter

from bench.e2e.background import BackgroundPlan, _schedule
from bench.e2e.fleet import (
    CHURN_LABEL,
    SEQ_LABEL,
    UNSCHEDULED,
    FleetSize,
    churn_pod_keys,
    creations,
    pod_body,
    service_body,
    statuses,
)

SIZE = FleetSize(pods=30, deployments=5, services=4, churn_pods=12, namespaces=3)


def test_every_object_is_created_once_then_every_pod_gets_a_status() -> None:
    writes = list(creations(SIZE))
    kinds = Counter(path.rsplit("/", 1)[-1] for _method, path, _body, _type in writes)
    assert kinds == {"pods": 30, "deployments": 5, "services": 4}
    assert len({(path, body["metadata"]["name"]) for _m, path, body, _t in writes}) == 39
    patched = [path for method, path, _body, _type in statuses(SIZE) if method == "PATCH"]
    assert len(patched) == 30 and all(path.endswith("/status") for path in patched)


def test_only_the_churn_pods_carry_the_churn_labels_and_no_pod_is_scheduled() -> None:
    churn = [pod_body(i, SIZE) for i in range(12)]
    rest = [pod_body(i, SIZE) for i in range(12, 30)]
    assert all(p["metadata"]["labels"][CHURN_LABEL] == "1" for p in churn)
    assert all(p["metadata"]["labels"][SEQ_LABEL] == "0" for p in churn)
    assert not any(CHURN_LABEL in p["metadata"]["labels"] for p in rest)
    assert {p["spec"]["schedulerName"] for p in churn + rest} == {UNSCHEDULED}
    assert churn_pod_keys(SIZE)[4] == ("bench-1", "pod-00004")


def test_services_are_headless_so_a_small_cluster_ip_range_is_enough() -> None:
    assert service_body(7)["spec"]["clusterIP"] == "None"


def test_the_background_schedule_merges_both_streams_in_time_order() -> None:
    plan = BackgroundPlan(pods_per_second=2.0, rollouts_per_second=1.0, deployments_per_second=0.5)
    events = _schedule(plan, horizon=2.0)
    assert [(offset, action, n) for offset, action, n in events] == [
        (0.0, "deployment", 0),
        (0.0, "pod", 0),
        (0.0, "roll", 0),
        (0.5, "pod", 1),
        (1.0, "pod", 2),
        (1.0, "roll", 1),
        (1.5, "pod", 3),
    ]
