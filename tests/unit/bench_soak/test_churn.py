"""The soak's churn: the mix it promises, on a small generated cluster."""

from __future__ import annotations

import json

from bench.scale.standin import build
from bench.soak.churn import LIVE_CREATED, MIX, SoakChurn, change_kind


def _churn(pods: int = 40) -> SoakChurn:
    return SoakChurn(build(pods, 4, history=10_000, seed=3), seed=3)


def test_the_mix_repeats_every_twenty_changes() -> None:
    assert len(MIX) == 20
    assert [change_kind(n) for n in range(40)] == list(MIX) * 2
    assert MIX.count("seq") == 7 and MIX.count("create") == MIX.count("delete") == 2


def test_every_sort_of_change_happens_and_new_values_are_new() -> None:
    churn = _churn()
    lines = [event.line for _ in range(200) for event in churn.change()]
    counts = churn.counts
    assert counts["seq"] == 70 and counts["annotation"] == 50 and counts["label"] == 30
    assert counts["fail"] > 0 and counts["create"] >= 20 and counts["delete"] > 0
    notes = [json.loads(line)["object"]["metadata"].get("annotations", {}).get(
        "soak.example/note") for line in lines]  # fmt: skip
    written = [n for n in notes if n]
    assert len(set(written)) >= counts["annotation"]  # never a value seen before
    types = {json.loads(line)["type"] for line in lines}
    assert types == {"ADDED", "MODIFIED", "DELETED"}


def test_created_pods_are_kept_bounded_and_deleted_oldest_first() -> None:
    churn = _churn()
    for _ in range(20 * (LIVE_CREATED // 2)):
        churn.change()
    assert len(churn.created) <= LIVE_CREATED
    pods = churn.cluster.collections["pods"]
    assert all(key in pods.objects for key in churn.created)
    assert len(pods.objects) == 40 + len(churn.created)


def test_a_failed_pod_is_failed_once_and_seqs_to_tell_are_those_of_bench_pods() -> None:
    churn = _churn()
    for _ in range(400):
        churn.change()
    assert churn.counts["fail"] >= len(churn.failed) > 0  # some failed Pods were deleted since
    phases = [b'"phase":"Failed"' in churn.cluster.collections["pods"].objects[k]
              for k in churn.failed]  # fmt: skip
    assert all(phases)
    pods = churn.cluster.collections["pods"]
    for seq in churn.matching[-5:]:
        holder = next(d for d in pods.objects.values() if b'"seq":"%d"' % seq in d)
        assert b'"bench":"1"' in holder
