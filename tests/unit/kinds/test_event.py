"""Events: once per event object, repeats as a signal, the involved object as owner."""

from __future__ import annotations

from typing import Any

import msgspec

from notifier.kinds.event import Event
from notifier.origin import Origin
from notifier.rules.facts.contexts import single_context
from notifier.transitions.detecting import detect
from notifier.transitions.owners import owner_of
from notifier.transitions.states import states_of


def _event(count: int, **extra: Any) -> Event:
    doc = {
        "metadata": {
            "name": "web-1.17f0a",
            "namespace": "shop",
            "uid": "e1",
            "resourceVersion": str(count),
        },
        "involvedObject": {"kind": "Pod", "namespace": "shop", "name": "web-1"},
        "reason": "BackOff",
        "message": "Back-off restarting failed container web",
        "type": "Warning",
        "count": count,
        "lastTimestamp": f"2026-11-24T09:0{count}:00Z",
        **extra,
    }
    return msgspec.convert(doc, type=Event)


def test_a_warning_is_told_once_and_each_repeat_is_only_a_signal() -> None:
    added = detect(None, _event(1), origin=Origin.LIVE, observed_at=1.0, correlation_id="e")
    again = detect(_event(1), _event(2), origin=Origin.LIVE, observed_at=2.0, correlation_id="e")
    assert added is not None and again is not None
    assert added.entered == {"Warning"}
    assert again.entered == frozenset() and again.signals == {"Repeated"}
    context = single_context(again, cluster="", rule="r", owner=owner_of(again.obj))
    assert context["reason"] == "BackOff" and ["Seen", "2 times"] in context["details"]
    assert context["owner_text"] == "created by Pod web-1"


def test_series_count_counts_too_and_odd_types_have_no_state() -> None:
    first, later = _event(0, series={"count": 2}), _event(0, series={"count": 5})
    again = detect(first, later, origin=Origin.LIVE, observed_at=2.0, correlation_id="e")
    assert again is not None and again.signals == {"Repeated"}
    assert states_of(_event(1, type="Fancy")) == frozenset()
    assert owner_of(_event(1, involvedObject={})) is None
