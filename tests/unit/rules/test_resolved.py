"""send_resolved: a firing is resolved once, when the object leaves what was told, and only
if it was sent."""

from __future__ import annotations

from typing import Any

import pytest

from notifier.objects import Kind, ObjectKey
from notifier.rules.config.problems import RulesError
from notifier.rules.engine import RulesEngine
from notifier.rules.incidents.resolving import Firing
from notifier.sinks.webhook.payload import payload_of
from notifier.transitions.model import Transition
from tests.unit.rules.builders import NOW, POD_JSON, changed, crashloop, ruleset, transition

RULE = {
    "name": "crash-loops",
    "match": {"kinds": ["Pod"], "to": ["CrashLoopBackOff", "OOMKilled"]},
    "sinks": ["console"],
    "send_resolved": True,
    "recovery_window": "0s",  # its incident ends once recovered: test_incidents.py times it
}


class MemoryFirings:
    """A store shared by two engines: what a restart reads back."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str, str], Firing] = {}

    def all_firing(self) -> list[Firing]:
        return list(self.rows.values())

    def fire(self, firing: Firing) -> None:
        self.rows[(firing.rule, firing.kind, firing.key)] = firing

    def resolve(self, firing: Firing) -> None:
        self.rows.pop((firing.rule, firing.kind, firing.key), None)


def _engine(rules: list[dict[str, Any]], firings: MemoryFirings | None = None) -> RulesEngine:
    compiled = ruleset(rules)
    return RulesEngine(lambda: compiled, clock=lambda: NOW, firings=firings)


def _recovered(version: str = "48300") -> Transition:
    """The crash-looping pod Running and Ready again."""
    old = changed(POD_JSON, metadata={**POD_JSON["metadata"], "resourceVersion": "48213"})
    new = changed(POD_JSON, metadata={**POD_JSON["metadata"], "resourceVersion": version})
    return transition(
        old,
        new,
        old_states={"Running", "NotReady", "CrashLoopBackOff", "OOMKilled"},
        new_states={"Running", "Ready"},
    )


def _payload(notification: Any) -> dict[str, Any]:
    payload: dict[str, Any] = payload_of(notification.facts)
    return payload


def test_a_crash_loop_that_recovers_is_resolved_once_with_the_same_fingerprint() -> None:
    engine = _engine([RULE])
    [firing] = engine.process(crashloop())
    [resolution] = engine.process(_recovered())
    assert engine.process(_recovered("48301")) == []  # once
    assert resolution.id != firing.id and resolution.sink == "console"
    assert "resolved: OOMKilled, CrashLoopBackOff -> Ready, Running" in resolution.facts["summary"]
    told, over = _payload(firing), _payload(resolution)
    assert (told["status"], over["status"]) == ("firing", "resolved")
    assert told["fingerprint"] == over["fingerprint"] != ""


def test_a_deleted_object_resolves_what_was_told() -> None:
    engine = _engine([RULE])
    engine.process(crashloop())
    gone = transition(POD_JSON, None, old_states={"Running", "CrashLoopBackOff"})
    [resolution] = engine.process(gone)
    assert "resolved: " in resolution.facts["summary"]


def test_nothing_is_resolved_that_was_not_sent_or_that_the_rule_does_not_ask() -> None:
    unmatched: dict[str, Any] = {**RULE, "match": {"kinds": ["Pod"], "labels": "app=other"}}
    engine = _engine([unmatched])
    assert _resolutions(engine.process(crashloop())) == []
    assert _resolutions(engine.process(_recovered())) == []
    deduped = _engine([RULE])
    deduped.process(crashloop())
    deduped.process(_recovered())
    assert _resolutions(deduped.process(crashloop())) == []  # suppressed by dedup: not told
    assert _resolutions(deduped.process(_recovered("48302"))) == []
    plain = _engine([{**RULE, "send_resolved": False}])
    plain.process(crashloop())
    assert _resolutions(plain.process(_recovered())) == []


def _resolutions(notifications: list[Any]) -> list[Any]:
    return [n for n in notifications if n.facts.get("status") == "resolved"]


def test_still_in_one_of_the_states_told_is_not_over() -> None:
    engine = _engine([RULE])
    engine.process(crashloop())
    still = _recovered()
    still_looping = transition(
        changed(POD_JSON), changed(POD_JSON), new_states={"Running", "CrashLoopBackOff"}
    )
    assert _resolutions(engine.process(still_looping)) == []
    assert len(_resolutions(engine.process(still))) == 1


def test_what_was_told_survives_a_restart() -> None:
    firings = MemoryFirings()
    _engine([RULE], firings).process(crashloop())
    assert [(f.kind, f.key) for f in firings.all_firing()] == [
        (Kind.POD, ObjectKey("shop/web-7d4b9c6f5d-x2x9q"))
    ]
    after_restart = _engine([RULE], firings)
    assert len(after_restart.process(_recovered())) == 1
    assert firings.all_firing() == []


def test_thread_by_object_puts_the_firing_and_its_resolution_in_one_thread() -> None:
    engine = _engine([{**RULE, "thread_by": "object"}])
    [firing] = engine.process(crashloop())
    [resolution] = engine.process(_recovered())
    assert firing.thread_key == resolution.thread_key == firing.facts["fingerprint"]
    assert (firing.resolves, resolution.resolves) == (False, True)
    assert _engine([RULE]).process(crashloop())[0].thread_key is None


GROUPED = {**RULE, "sinks": ["slack"], "group_by": ["namespace", "transition"], "group_wait": "30s",
           "thread_by": "group"}  # fmt: skip


def _other_pod(name: str) -> Transition:
    meta = {**POD_JSON["metadata"], "name": name, "uid": f"uid-{name}"}
    return crashloop(metadata=meta)


def test_a_thread_per_group_holds_its_digests_and_its_members_resolutions() -> None:
    engine = _engine([GROUPED])
    assert engine.process(crashloop()) == [] and engine.process(_other_pod("web-2")) == []
    [digest] = engine.tick(NOW + 31).notifications
    [resolution] = engine.process(_recovered())
    assert digest.thread_key == resolution.thread_key == "group:crash-loops|namespace=shop"
    assert resolution.resolves and not resolution.closes_thread  # the digest's root stays
    by_object = _engine([{**RULE, "sinks": ["slack"], "thread_by": "object"}])
    [firing] = by_object.process(crashloop())
    [over] = by_object.process(_recovered())
    assert firing.thread_key == over.thread_key == firing.fingerprint and over.closes_thread


def test_thread_by_group_without_grouping_is_refused_at_load() -> None:
    with pytest.raises(RulesError, match=r"thread_by: group needs group_by"):
        ruleset([{**RULE, "thread_by": "group"}])
