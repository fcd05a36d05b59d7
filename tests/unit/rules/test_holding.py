"""Held group members: handed to the holding while they wait, forgotten once released, restored."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from notifier.rules.engine import RulesEngine
from notifier.rules.timing.holding import Held
from tests.unit.rules.builders import NOW, POD_JSON, crashloop, ruleset

GROUPED = {"name": "f", "sinks": ["slack"], "group_by": ["namespace"], "dedup_window": 0}


class RecordingHolding:
    def __init__(self, held: Sequence[Held] = ()) -> None:
        self.kept: dict[int, Held] = {member.token: member for member in held}
        self.forgotten: list[int] = []

    def held(self) -> list[Held]:
        return sorted(self.kept.values(), key=lambda member: member.token)

    def hold(self, member: Held) -> None:
        self.kept[member.token] = member

    def forget(self, tokens: Sequence[int]) -> None:
        self.forgotten += tokens
        for token in tokens:
            self.kept.pop(token, None)


def _engine(rules: list[dict[str, Any]], holding: RecordingHolding, **kw: Any) -> RulesEngine:
    compiled = ruleset(rules, **kw)
    return RulesEngine(lambda: compiled, clock=lambda: NOW, holding=holding)


def _pod(index: int) -> Any:
    metadata = {**POD_JSON["metadata"], "name": f"web-{index}", "uid": f"u-{index}"}
    return crashloop(metadata=metadata)


def test_grouped_members_are_held_until_their_digest_is_forgotten() -> None:
    holding = RecordingHolding()
    engine = _engine([GROUPED], holding)
    for index in range(3):
        assert engine.process(_pod(index), now=NOW) == []
    assert sorted(m.transition.name for m in holding.held()) == ["web-0", "web-1", "web-2"]

    released = engine.tick(NOW + 30)
    assert len(released.notifications) == 1
    assert len(holding.kept) == 3, "nothing is forgotten before the digest is submitted"
    engine.forget(released)
    assert holding.kept == {}


def test_members_past_the_listed_ones_are_held_and_forgotten_too() -> None:
    holding = RecordingHolding()
    engine = _engine([GROUPED], holding, defaults={"digest_max_items": 2})
    for index in range(5):
        engine.process(_pod(index), now=NOW)
    engine.forget(engine.tick(NOW + 30))
    assert holding.kept == {} and len(holding.forgotten) == 5


def test_ungrouped_and_deduplicated_transitions_are_not_held() -> None:
    holding = RecordingHolding()
    engine = _engine([{"name": "r", "sinks": ["slack"], "dedup_window": 60}], holding)
    assert len(engine.process(_pod(1), now=NOW)) == 1
    assert engine.process(_pod(1), now=NOW + 1) == []
    assert holding.kept == {}


def test_restored_members_wait_from_when_they_were_held_and_are_marked_catch_up() -> None:
    first = RecordingHolding()
    before = _engine([GROUPED], first)
    before.process(_pod(1), now=NOW - 10)
    before.process(_pod(2), now=NOW - 5)
    restarted = _engine([GROUPED], RecordingHolding(first.held()))
    assert restarted.restore().notifications == []

    assert restarted.tick(NOW + 19).notifications == []  # group_wait 30 s from NOW - 10
    [digest] = restarted.tick(NOW + 20).notifications
    assert digest.facts["count"] == 2
    assert {item["origin"] for item in digest.facts["items"]} == {"catch_up"}
    assert digest.catch_up


def test_a_restored_member_whose_rule_no_longer_groups_is_sent_at_once() -> None:
    first = RecordingHolding()
    _engine([GROUPED], first).process(_pod(1), now=NOW)
    holding = RecordingHolding(first.held())
    restored = _engine([{"name": "f", "sinks": ["slack"]}], holding).restore()
    assert [n.rule for n in restored.notifications] == ["f"]
    assert restored.tokens == tuple(first.kept)


def test_a_restored_member_of_a_removed_rule_is_forgotten() -> None:
    first = RecordingHolding()
    _engine([GROUPED], first).process(_pod(1), now=NOW)
    holding = RecordingHolding(first.held())
    engine = _engine([{"name": "other", "sinks": ["slack"]}], holding)
    restored = engine.restore()
    assert restored.notifications == []
    engine.forget(restored)
    assert holding.kept == {}


def test_tokens_after_a_restore_do_not_collide_with_restored_ones() -> None:
    first = RecordingHolding()
    engine = _engine([GROUPED], first)
    for index in range(3):
        engine.process(_pod(index), now=NOW)
    holding = RecordingHolding(first.held())
    restarted = _engine([GROUPED], holding)
    restarted.restore()
    restarted.process(_pod(9), now=NOW)
    assert len(holding.kept) == 4
