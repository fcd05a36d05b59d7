"""The watch floor reads the churn Pod and seq of MODIFIED events, and where to resume."""

from __future__ import annotations

import json
from typing import Any

from bench.e2e.watchfloor import parse_event

INDEX = {"bench-3/pod-00003": 3}


def event(kind: str, namespace: str, name: str, labels: dict[str, str]) -> bytes:
    meta: dict[str, Any] = {
        "namespace": namespace,
        "name": name,
        "labels": labels,
        "resourceVersion": "4711",
    }
    return json.dumps({"type": kind, "object": {"kind": "Pod", "metadata": meta}}).encode()


def test_a_churn_pods_modification_is_an_arrival() -> None:
    line = event("MODIFIED", "bench-3", "pod-00003", {"bench": "1", "seq": "2000004"})
    assert parse_event(line, INDEX, 12.5) == ((3, 2000004, 12.5), "4711")


def test_other_events_and_other_pods_are_not_but_still_move_the_resource_version() -> None:
    labels = {"bench": "1", "seq": "7"}
    assert parse_event(event("ADDED", "bench-3", "pod-00003", labels), INDEX, 1.0) == (None, "4711")
    assert parse_event(event("MODIFIED", "bench-4", "pod-00004", labels), INDEX, 1.0)[0] is None
    assert parse_event(event("MODIFIED", "bench-3", "pod-00003", {}), INDEX, 1.0)[0] is None


def test_an_error_event_ends_the_watch() -> None:
    gone = json.dumps({"type": "ERROR", "object": {"kind": "Status", "code": 410}}).encode()
    assert parse_event(gone, INDEX, 1.0) == (None, None)
