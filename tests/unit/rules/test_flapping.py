"""``flapping:``: entering and leaving too often is told once, then its end once."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from notifier.notifications import Notification
from notifier.rules import metrics
from notifier.rules.config.problems import RulesError
from notifier.rules.engine import RulesEngine
from tests.unit.rules.builders import NOW, ruleset
from tests.unit.rules.test_timing import _entered, _recovered

WITHIN = 600.0
RULE: dict[str, Any] = {
    "name": "crash-loops",
    "match": {"kinds": ["Pod"], "to": ["CrashLoopBackOff"]},
    "sinks": ["console"],
    "dedup_window": "0s",
    "send_resolved": True,
    "flapping": {"changes": 4, "within": "10m"},
    "recovery_window": "0s",  # each recovery ends the incident: test_incidents.py has the window
}


def _engine(rules: list[dict[str, Any]]) -> RulesEngine:
    compiled = ruleset(rules)
    return RulesEngine(lambda: compiled, clock=lambda: NOW)


def _statuses(told: list[Notification]) -> list[str]:
    return [n.facts["status"] for n in told]


def _started() -> float:
    value: float = metrics.FLAPPING_STARTED._value.get()
    return value


def test_flapping_is_told_once_then_quiet_until_steady_then_resolved_once() -> None:
    engine = _engine([RULE])
    before = _started()
    assert _statuses(engine.process(_entered(NOW))) == ["firing"]
    assert _statuses(engine.process(_recovered(NOW + 10))) == ["resolved"]
    assert _statuses(engine.process(_entered(NOW + 20))) == ["firing"]
    [flapping] = engine.process(_recovered(NOW + 30))  # the fourth change
    assert flapping.facts["status"] == "flapping"
    assert (
        "flapping: entered or left CrashLoopBackOff 4 times within 10m" in flapping.facts["summary"]
    )
    quiet = engine.decide(_entered(NOW + 40))
    assert quiet.notifications == [] and ("crash-loops", "flapping") in quiet.suppressed
    assert engine.process(_recovered(NOW + 50)) == []  # its resolution is quiet too
    assert _started() == before + 1
    assert engine.next_due() == NOW + 50 + WITHIN
    assert engine.tick(NOW + 50 + WITHIN - 1).notifications == []
    [over] = engine.tick(NOW + 50 + WITHIN).notifications
    assert over.facts["status"] == "resolved" and over.resolves
    assert "no longer flapping: CrashLoopBackOff steady for 10m" in over.facts["summary"]
    assert over.facts["fingerprint"] == flapping.facts["fingerprint"]
    assert engine.tick(NOW + 10 * WITHIN).notifications == []
    assert _statuses(engine.process(_entered(NOW + 10 * WITHIN))) == ["firing"]  # told again


def test_changes_spread_wider_than_within_are_no_flapping() -> None:
    engine = _engine([RULE])
    told = []
    for step in range(8):
        change = _entered if step % 2 == 0 else _recovered
        told += engine.process(change(NOW + step * WITHIN / 2))
    assert "flapping" not in _statuses(told) and len(told) == 8


def test_a_timed_rule_that_flaps_keeps_its_timer_quiet() -> None:
    timed = {**RULE, "match": {**RULE["match"], "for": "1m"}, "send_resolved": False}
    engine = _engine([timed])
    for step in range(4):
        change = _entered if step % 2 == 0 else _recovered
        engine.process(change(NOW + step))
    engine.process(_entered(NOW + 5))  # flapping, and pending again
    assert engine.tick(NOW + 5 + 60).notifications == []


def test_flapping_needs_to_states() -> None:
    with pytest.raises(RulesError, match="'flapping' counts entries"):
        ruleset([{**RULE, "match": {"kinds": ["Pod"]}}])
    with pytest.raises(ValueError, match="greater than or equal to 2"):
        ruleset([{**RULE, "flapping": {"changes": 1, "within": "1m"}}])


def test_a_deleted_flapping_object_is_resolved_once_steady() -> None:
    engine = _engine([RULE])
    for step in range(4):
        change = _entered if step % 2 == 0 else _recovered
        engine.process(change(NOW + step))
    gone = replace(_recovered(NOW + 5), new=None)
    engine.process(gone)
    assert len(engine.tick(NOW + 5 + WITHIN).notifications) == 1


def test_flapping_needs_a_window() -> None:
    with pytest.raises(ValueError, match="'within' must be longer than 0s"):
        ruleset([{**RULE, "flapping": {"changes": 4, "within": "0s"}}])
