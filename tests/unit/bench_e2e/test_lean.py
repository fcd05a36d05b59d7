"""The lean notifier decides from plain dicts exactly what the baseline decides from models."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes import client

from bench.e2e import baseline, lean
from tests.unit.bench_e2e.test_baseline import deployment, pod

CASES = [
    ("Pod", pod(seq="1"), pod(seq="2")),
    ("Pod", pod(seq="1"), pod(seq="1")),
    ("Pod", pod(seq="1", bench=False), pod(seq="2", bench=False)),
    ("Pod", pod(), pod(phase="Failed")),
    ("Pod", pod(phase="Failed"), pod(phase="Failed")),
    ("Pod", pod(), pod(waiting="CrashLoopBackOff")),
    ("Pod", pod(), pod(terminated="OOMKilled")),
    ("Pod", pod(phase="Pending"), pod(phase="Running", seq="2")),
    ("Deployment", deployment("web:1"), deployment("web:2")),
    ("Deployment", deployment("web:1"), deployment("web:1")),
]


def as_json(model: Any) -> dict[str, Any]:
    """The object as the API server sends it (camelCase keys, nothing unset)."""
    found: dict[str, Any] = client.ApiClient().sanitize_for_serialization(model)  # type: ignore[no-untyped-call]
    return found


@pytest.mark.parametrize("phases", [False, True])
@pytest.mark.parametrize(("kind", "old", "new"), CASES)
def test_the_same_news_as_the_baseline(kind: str, old: Any, new: Any, phases: bool) -> None:
    expected = baseline.what_to_tell(kind, old, new, phases=phases)
    assert lean.what_to_tell(kind, as_json(old), as_json(new), phases=phases) == expected


def test_adds_tell_nothing() -> None:
    assert lean.what_to_tell("Pod", None, as_json(pod()), phases=False) == []


class Recording(lean.LeanNotifier):
    def __init__(self) -> None:
        super().__init__("http://127.0.0.1:9/unused")
        self.posted: list[tuple[str, dict[str, Any]]] = []

    def post(self, rule: str, about: dict[str, Any], summary: str) -> None:
        self.posted.append((rule, about))


def test_the_handler_compares_with_the_cached_dict_and_tells_only_modifications() -> None:
    notifier = Recording()
    notifier.handle("Pod", "ADDED", as_json(pod(seq="1")))
    notifier.handle("Pod", "MODIFIED", as_json(pod(seq="2")))
    notifier.handle("Pod", "MODIFIED", as_json(pod(seq="2")))
    notifier.handle("Pod", "DELETED", as_json(pod(seq="3")))
    notifier.handle("Pod", "MODIFIED", as_json(pod(seq="4")))  # unknown again
    assert [(rule, about["labels"]["seq"]) for rule, about in notifier.posted] == [
        ("bench-seq", "2")
    ]
    assert notifier.posted[0][1] | {"labels": {}} == {
        "kind": "Pod",
        "namespace": "ns",
        "name": "p",
        "uid": None,
        "resource_version": None,
        "labels": {},
    }
    assert notifier.cache.keys() == {("Pod", "ns", "p")}
