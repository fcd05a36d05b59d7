"""The receiver keeps (pod, seq, arrival time) for churn notifications and counts the rest."""

from __future__ import annotations

import json
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from bench.e2e.receiver import Received, Receiver


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver({"bench-0/pod-00000": 0, "bench-1/pod-00001": 1}).start()
    try:
        yield server
    finally:
        server.stop()


def post(receiver: Receiver, body: Any) -> int:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(receiver.url, data=data, method="POST")
    with urllib.request.urlopen(request, timeout=5) as response:
        return int(response.status)


def payload(rule: str, namespace: str, name: str, labels: dict[str, str]) -> dict[str, Any]:
    """The fields of kube-notifier's built-in payload the receiver reads (docs/rules.md)."""
    obj = {"kind": "Pod", "namespace": namespace, "name": name, "labels": labels}
    return {"schema": "kube-notifier/v1", "rule": rule, "object": obj}


def test_churn_notifications_become_arrivals_stamped_on_arrival(receiver: Receiver) -> None:
    before = time.monotonic()
    labels = {"bench": "1", "seq": "3000007", "app": "x"}
    assert post(receiver, payload("bench-seq", "bench-1", "pod-00001", labels)) == 200
    arrivals, others, _mentions = receiver.take()
    assert len(arrivals) == 1
    pod, seq, at = arrivals[0]
    assert (pod, seq) == (1, 3000007)
    assert before <= at <= time.monotonic()
    assert not others


def test_everything_else_is_counted_by_rule(receiver: Receiver) -> None:
    post(receiver, payload("pod-failures", "bench-2", "bg-1-000001", {"app": "x"}))
    post(receiver, payload("bench-seq", "bench-9", "pod-09999", {"bench": "1", "seq": "5"}))
    post(receiver, b"not json")
    arrivals, others, _mentions = receiver.take()
    assert arrivals == []
    assert others == {"pod-failures": 1, "bench-seq": 1, "unparsed": 1}


def test_take_hands_over_and_forgets(receiver: Receiver) -> None:
    post(receiver, payload("bench-seq", "bench-0", "pod-00000", {"bench": "1", "seq": "1"}))
    assert len(receiver.peek().arrivals) == 1
    assert receiver.count() == 1
    assert len(receiver.take().arrivals) == 1
    assert receiver.take() == Received([], Counter(), [])


def kubewatch_payload(kind: str, namespace: str, name: str, reason: str) -> dict[str, Any]:
    """kubewatch's webhook payload: its event's meta, a text and a time; no labels."""
    meta = {"kind": kind, "name": name, "namespace": namespace, "reason": reason}
    return {"eventmeta": meta, "text": "A `pod` in namespace ...", "time": "2026-11-24T06:00:00Z"}


def test_kubewatch_updates_of_churn_pods_are_kept_as_mentions_and_answered_close(
    receiver: Receiver,
) -> None:
    before = time.monotonic()
    body = json.dumps(kubewatch_payload("Pod", "bench-1", "pod-00001", "Updated")).encode()
    request = urllib.request.Request(receiver.url, data=body, method="POST")
    with urllib.request.urlopen(request, timeout=5) as response:
        assert response.status == 200
        assert response.headers["Connection"] == "close"
    arrivals, others, mentions = receiver.take()
    assert arrivals == []
    assert not others
    [(pod, at)] = mentions
    assert pod == 1
    assert before <= at <= time.monotonic()


def test_kubewatchs_other_notifications_are_counted_by_kind_and_reason(receiver: Receiver) -> None:
    post(receiver, kubewatch_payload("Pod", "bench-0", "pod-00000", "Deleted"))
    post(receiver, kubewatch_payload("Pod", "bench-2", "bg-1-000001", "Updated"))
    post(receiver, kubewatch_payload("Deployment", "bench-0", "deploy-0000", "Updated"))
    arrivals, others, mentions = receiver.take()
    assert (arrivals, mentions) == ([], [])
    assert others == {
        "kubewatch Pod Deleted": 1,
        "kubewatch Pod Updated": 1,
        "kubewatch Deployment Updated": 1,
    }


def test_a_churn_pod_named_without_a_seq_is_a_mention(receiver: Receiver) -> None:
    """The phase workload: the churn Pods have no seq label; kube-notifier's and the
    baseline's notifications are scored first in, first out, as kubewatch's are."""
    post(receiver, payload("bench-phase", "bench-1", "pod-00001", {"bench": "1"}))
    post(receiver, payload("bench-phase", "bench-7", "pod-00007", {"bench": "1"}))
    arrivals, others, mentions = receiver.take()
    assert arrivals == []
    assert [pod for pod, _at in mentions] == [1]
    assert others == {"bench-phase": 1}
