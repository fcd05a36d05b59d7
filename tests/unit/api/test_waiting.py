"""The Now view's pending ``for:`` timers and open groups, read from a real rules engine."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from notifier.api.paged import Where
from notifier.api.waiting import WaitingList
from notifier.rules.engine import RulesEngine
from notifier.rules.timing.held_back import Member
from notifier.transitions.model import Transition
from tests.unit.rules.builders import NOW, POD_JSON, crashloop, ruleset

RULES: list[dict[str, Any]] = [
    {"name": "stays-crashing", "match": {"kinds": ["Pod"], "to": ["CrashLoopBackOff"],
     "for": "60s"}, "sinks": ["console"], "continue": True},
    {"name": "crash-digest", "match": {"kinds": ["Pod"], "to": ["CrashLoopBackOff"]},
     "sinks": ["console"], "group_by": ["namespace"]},
]  # fmt: skip


def _pod(name: str, namespace: str, at: float = NOW) -> Transition:
    metadata = {**POD_JSON["metadata"], "name": name, "namespace": namespace, "uid": name}
    return replace(crashloop(metadata=metadata), observed_at=at)


def _waiting() -> tuple[RulesEngine, WaitingList]:
    compiled = ruleset(RULES)
    engine = RulesEngine(lambda: compiled, clock=lambda: NOW)
    for index, name in enumerate(("web-0", "web-1", "web-2")):
        engine.decide(_pod(name, "shop", NOW + index), NOW + index)
    engine.decide(_pod("api-0", "billing", NOW + 5), NOW + 5)
    return engine, WaitingList(engine.pending, engine.open_groups)


def test_pending_timers_say_rule_object_state_since_and_fires_at_soonest_first() -> None:
    _, waiting = _waiting()
    pending = waiting.pending(Where(), 0, 100)
    assert pending.total == 4 and not pending.has_next
    first = pending.items[0]
    assert (first.rule, first.kind, first.namespace, first.name) == (
        "stays-crashing", "Pod", "shop", "web-0")  # fmt: skip
    assert first.states == ("CrashLoopBackOff",)
    assert [(item.name, item.since, item.fires_at) for item in pending.items] == [
        ("web-0", NOW, NOW + 60), ("web-1", NOW + 1, NOW + 61), ("web-2", NOW + 2, NOW + 62),
        ("api-0", NOW + 5, NOW + 65),
    ]  # fmt: skip


def test_pending_is_filtered_and_paged() -> None:
    _, waiting = _waiting()
    assert [i.name for i in waiting.pending(Where(namespace="billing"), 0, 100).items] == ["api-0"]
    assert waiting.pending(Where(rule="crash-digest"), 0, 100).total == 0
    assert waiting.pending(Where(kind="Node"), 0, 100).total == 0
    second = waiting.pending(Where(), 2, 2)
    assert [i.name for i in second.items] == ["web-2", "api-0"] and second.total == 4
    assert not second.has_next and waiting.pending(Where(), 0, 2).has_next


def test_open_groups_say_rule_labels_members_and_when_the_digest_goes() -> None:
    _, waiting = _waiting()
    groups = waiting.groups(Where(), 0, 50)
    assert [(g.rule, g.labels, g.members, g.due_at) for g in groups.items] == [
        ("crash-digest", (("namespace", "shop"),), 3, NOW + 30),
        ("crash-digest", (("namespace", "billing"),), 1, NOW + 35),
    ]
    assert groups.items[0].listed == tuple(Member("Pod", "shop", f"web-{i}") for i in range(3))
    shop = waiting.groups(Where(namespace="shop", kind="Pod", rule="crash-digest"), 0, 50)
    assert shop.total == 1 and shop.items[0].members == 3
    assert waiting.groups(Where(rule="stays-crashing"), 0, 50).total == 0


def test_what_ends_or_is_released_leaves_the_lists() -> None:
    engine, waiting = _waiting()
    before = waiting.pending(Where(), 0, 100)
    recovered = _pod("web-1", "shop", NOW + 10)
    recovered = replace(recovered, old_states=recovered.new_states,
                        new_states=frozenset({"Running", "Ready"}))  # fmt: skip
    engine.decide(recovered, NOW + 10)
    assert [i.name for i in waiting.pending(Where(), 0, 100).items] == ["web-0", "web-2", "api-0"]
    assert before.total == 4  # a page already read is a snapshot: it does not change under it
    engine.tick(NOW + 31)
    assert [g.labels for g in waiting.groups(Where(), 0, 50).items] == [(("namespace", "billing"),)]
    engine.tick(NOW + 61)
    assert [i.name for i in waiting.pending(Where(), 0, 100).items] == ["web-2", "api-0"]
