"""``escalate`` and reminders: still firing after a while, told to more sinks / again."""

from __future__ import annotations

from typing import Any

import pytest

from notifier.notifications import Notification
from notifier.rules.config.problems import RulesError
from notifier.rules.engine import RulesEngine
from notifier.silences.book import Silence, SilenceBook, parse_matchers
from tests.unit.rules.builders import NOW, ruleset
from tests.unit.rules.test_timing import MemoryTimers, _entered, _recovered

HALF_HOUR = 1800.0
RULE: dict[str, Any] = {
    "name": "crash-loops",
    "match": {"kinds": ["Pod"], "to": ["CrashLoopBackOff"]},
    "sinks": ["console"],
    "send_resolved": True,
    "escalate": [{"after": "30m", "sinks": ["slack"]}],
    "recovery_window": "0s",  # resolved once recovered: test_incidents.py has the window
}


def _engine(
    rules: list[dict[str, Any]],
    *,
    timers: MemoryTimers | None = None,
    silences: SilenceBook | None = None,
) -> RulesEngine:
    compiled = ruleset(rules)
    return RulesEngine(lambda: compiled, clock=lambda: NOW, timers=timers, silences=silences)


def _where(told: list[Notification]) -> list[tuple[str, str]]:
    return [(n.sink, n.facts["status"]) for n in told]


def test_still_firing_after_the_step_reaches_its_sinks_once_and_the_resolution_too() -> None:
    engine = _engine([RULE])
    assert _where(engine.process(_entered(NOW), now=NOW)) == [("console", "firing")]
    assert engine.tick(NOW + HALF_HOUR - 1).notifications == []
    [escalated] = engine.tick(NOW + HALF_HOUR).notifications
    assert (escalated.sink, escalated.rule) == ("slack", "crash-loops")
    assert (
        "CrashLoopBackOff" in escalated.facts["summary"] and "for 30m" in escalated.facts["summary"]
    )
    assert engine.tick(NOW + 4 * HALF_HOUR).notifications == []
    resolutions = engine.process(_recovered(NOW + 5 * HALF_HOUR), now=NOW + 5 * HALF_HOUR)
    assert sorted(_where(resolutions)) == [("console", "resolved"), ("slack", "resolved")]


def test_resolved_before_the_step_is_not_escalated_nor_resolved_there() -> None:
    engine = _engine([RULE])
    engine.process(_entered(NOW), now=NOW)
    assert _where(engine.process(_recovered(NOW + 60), now=NOW + 60)) == [("console", "resolved")]
    assert engine.tick(NOW + 2 * HALF_HOUR).notifications == []


def test_a_silence_when_the_step_comes_due_keeps_it_quiet() -> None:
    book = SilenceBook()
    until = NOW + 2 * HALF_HOUR
    matchers = parse_matchers("kind=Pod")
    book.replace([Silence(id="s", matchers=matchers, starts_at=NOW + 60, ends_at=until)])
    engine = _engine([RULE], silences=book)
    engine.process(_entered(NOW), now=NOW)
    assert engine.tick(NOW + HALF_HOUR).notifications == []
    assert engine.tick(until + 1).notifications == []


def test_a_step_survives_a_restart() -> None:
    timers = MemoryTimers()
    _engine([RULE], timers=timers).process(_entered(NOW), now=NOW)
    restarted = _engine([RULE], timers=timers)
    restarted.restore()
    restarted.caught_up()
    assert _where(restarted.tick(NOW + HALF_HOUR).notifications) == [("slack", "firing")]


def test_reminders_say_how_long_it_has_been_firing_and_stop_when_it_ends() -> None:
    engine = _engine([{**RULE, "escalate": [], "repeat_interval": "1h"}])
    [first] = engine.process(_entered(NOW), now=NOW)
    [again] = engine.tick(NOW + 2 * HALF_HOUR).notifications
    assert "for 1h" in again.facts["summary"] and again.sink == "console"
    [third] = engine.tick(NOW + 4 * HALF_HOUR).notifications
    assert "for 2h" in third.facts["summary"]
    assert len({first.id, again.id, third.id}) == 3
    assert len(engine.tick(NOW + 20 * HALF_HOUR).notifications) == 1  # a long gap: one, not eight
    engine.process(_recovered(NOW + 21 * HALF_HOUR), now=NOW + 21 * HALF_HOUR)
    assert engine.tick(NOW + 40 * HALF_HOUR).notifications == []


def test_a_grouped_rule_has_no_reminders() -> None:
    grouped = {**RULE, "escalate": [], "repeat_interval": "1h", "group_by": ["namespace"]}
    engine = _engine([grouped])
    engine.process(_entered(NOW), now=NOW)
    assert len(engine.tick(NOW + 60).notifications) == 1  # the group's release
    assert engine.tick(NOW + 2 * HALF_HOUR).notifications == []


def test_a_timed_rule_escalates_counting_from_when_it_fired() -> None:
    timed = {**RULE, "match": {**RULE["match"], "for": "5m"}}
    engine = _engine([timed])
    engine.process(_entered(NOW), now=NOW)
    assert _where(engine.tick(NOW + 300).notifications) == [("console", "firing")]
    assert engine.tick(NOW + HALF_HOUR).notifications == []
    assert _where(engine.tick(NOW + 300 + HALF_HOUR).notifications) == [("slack", "firing")]


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        ({"match": {"kinds": ["Pod"]}}, "'escalate' times what stays"),
        ({"escalate": [{"after": "1m", "sinks": ["pager"]}]}, "unknown sink 'pager'"),
    ],
)
def test_escalate_is_checked_at_load(changes: dict[str, Any], fragment: str) -> None:
    with pytest.raises(RulesError, match=fragment):
        ruleset([{**RULE, **changes}])
