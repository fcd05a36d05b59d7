"""The phase workload: small Pods, status patches moving each churn Pod to its next phase,
the seq in the condition, and every subject's notifications scored as mentions."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from kubernetes import client

from bench.e2e import phases
from bench.e2e.baseline import what_to_tell
from bench.e2e.churn import SEQ_STRIDE, ChurnPlan
from bench.e2e.fleet import FleetSize
from bench.e2e.scoring import match_mentions
from bench.e2e.watchfloor import parse_event

SIZE = FleetSize(pods=30, deployments=4, services=3, churn_pods=6, namespaces=3)
PODS = (("bench-0", "pod-00000"), ("bench-1", "pod-00001"))


def test_the_fleet_is_small_pending_pods_with_one_condition() -> None:
    created = list(phases.creations(SIZE))
    assert len(created) == SIZE.objects
    pods = [body for _method, path, body, _type in created if path.endswith("/pods")]
    assert len(pods) == SIZE.pods
    assert max(len(json.dumps(body)) for body in pods) < 400  # the large fleet's are ~3 KB
    churned = [p for p in pods if p["metadata"]["labels"].get("bench") == "1"]
    assert len(churned) == SIZE.churn_pods
    assert all("seq" not in p["metadata"]["labels"] for p in pods)  # no label changes at all
    for _method, path, body, _type in phases.statuses(SIZE):
        assert path.endswith("/status")
        assert body["status"]["phase"] == "Pending"
        assert len(body["status"]["conditions"]) == 1


def test_each_patch_moves_its_pod_one_phase_on_from_where_it_stood() -> None:
    plan = ChurnPlan(trial=2, rate=10.0, seconds=1.0, pods=PODS, phases=(0, 2))
    changes = [plan.change(i) for i in range(6)]
    assert all(path.endswith("/status") for path, _ in changes)
    first = [body["status"]["phase"] for path, body in changes if "pod-00000" in path]
    second = [body["status"]["phase"] for path, body in changes if "pod-00001" in path]
    assert first == ["Running", "Failed", "Pending"]  # from Pending
    assert second == ["Pending", "Running", "Failed"]  # from Failed
    for index, (_path, body) in enumerate(changes):
        assert phases.seq_of(body) == plan.seq(index) == 2 * SEQ_STRIDE + index // 2


def test_without_phases_a_plan_patches_the_seq_label() -> None:
    path, body = ChurnPlan(trial=1, rate=None, seconds=1.0, pods=PODS).change(3)
    assert path == "/api/v1/namespaces/bench-1/pods/pod-00001"
    assert body == {"metadata": {"labels": {"seq": str(SEQ_STRIDE + 1)}}}


def test_where_each_cycle_stands_is_read_from_a_list() -> None:
    listed = {
        "items": [
            {
                "metadata": {"namespace": "bench-1", "name": "pod-00001"},
                "status": {"phase": "Failed"},
            },
            {"metadata": {"namespace": "bench-0", "name": "pod-00000"}, "status": {}},
        ]
    }
    assert phases.phase_indices(listed, PODS) == (0, 2)
    assert phases.phase_indices({"items": []}, PODS) == (0, 0)


def test_the_watch_floor_reads_the_seq_from_the_condition() -> None:
    obj = {
        "metadata": {
            "namespace": "bench-1",
            "name": "pod-00001",
            "labels": {"bench": "1"},
            "resourceVersion": "99",
        },
        "status": phases.status_of("Running", 3000001),
    }
    line = json.dumps({"type": "MODIFIED", "object": obj}).encode()
    assert parse_event(line, {"bench-1/pod-00001": 1}, 5.0) == ((1, 3000001, 5.0), "99")
    obj["status"]["conditions"][0]["message"] = "scheduled"
    line = json.dumps({"type": "MODIFIED", "object": obj}).encode()
    assert parse_event(line, {"bench-1/pod-00001": 1}, 5.0) == (None, "99")


def _pod(phase: str, bench: bool = True) -> Any:
    labels = {"bench": "1"} if bench else {}
    return client.V1Pod(
        metadata=client.V1ObjectMeta(name="p", namespace="ns", labels=labels),
        status=client.V1PodStatus(phase=phase),
    )


def test_the_baseline_tells_each_phase_change_of_a_churn_pod_once() -> None:
    assert what_to_tell("Pod", _pod("Running"), _pod("Failed"), phases=True) == [
        ("bench-phase", "phase Running -> Failed")
    ]
    assert what_to_tell("Pod", _pod("Failed"), _pod("Failed"), phases=True) == []
    assert what_to_tell("Pod", _pod("Running", False), _pod("Failed", False), phases=True) == []


def test_phase_notifications_are_mentions_matched_first_in_first_out() -> None:
    sends = [(0, 5, 1.0, 1.01, 200), (0, 6, 2.0, 2.01, 200), (1, 5, 1.5, 1.51, 200)]
    matched, unmatched = match_mentions(sends, [(0, 1.2), (1, 1.6), (0, 2.1), (0, 2.2)])
    assert sorted(matched) == [(0, 5, 1.2), (0, 6, 2.1), (1, 5, 1.6)]
    assert unmatched == 1
    assert Counter(pod for pod, _seq, _at in matched) == {0: 2, 1: 1}
