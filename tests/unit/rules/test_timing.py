"""``for:``: pending, then firing; leaving first cancels quietly; durable across restarts."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from notifier.origin import Origin
from notifier.rules import metrics
from notifier.rules.config.problems import RulesError
from notifier.rules.decisions import Decision
from notifier.rules.engine import RulesEngine
from notifier.rules.incidents.resolving import Resolver
from notifier.rules.matching.probing import EvalContext, default_owner_of, no_namespace_labels
from notifier.rules.ruleset import Ruleset
from notifier.rules.timing.timekeeper import TimeKeeper
from notifier.rules.timing.timers import Timer
from notifier.silences.book import Silence, SilenceBook, parse_matchers
from notifier.transitions.model import Transition
from tests.unit.rules.builders import NOW, POD_JSON, changed, crashloop, ruleset, transition

FIVE_MINUTES = 300.0
RULE: dict[str, Any] = {
    "name": "stays-crashing",
    "match": {"kinds": ["Pod"], "to": ["CrashLoopBackOff", "OOMKilled"], "for": "5m"},
    "sinks": ["console"],
}


class MemoryTimers:
    """A timer store shared by engines: what a restart reads back."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, int, str, str], Timer] = {}

    def all_timers(self) -> list[Timer]:
        return list(self.rows.values())

    def save(self, timer: Timer) -> None:
        self.rows[(timer.rule, timer.step, *timer.object_id)] = timer

    def drop(self, timer: Timer) -> None:
        self.rows.pop((timer.rule, timer.step, *timer.object_id), None)


class Rules:
    """The ruleset a reload swaps."""

    def __init__(self, rules: list[dict[str, Any]]) -> None:
        self.current: Ruleset = ruleset(rules)

    def __call__(self) -> Ruleset:
        return self.current


def _engine(
    rules: list[dict[str, Any]] | Rules,
    *,
    timers: MemoryTimers | None = None,
    silences: SilenceBook | None = None,
) -> RulesEngine:
    held = rules if isinstance(rules, Rules) else Rules(rules)
    return RulesEngine(held, clock=lambda: NOW, timers=timers, silences=silences)


def _entered(at: float = NOW) -> Transition:
    return replace(crashloop(), observed_at=at)


def _recovered(at: float) -> Transition:
    old = changed(POD_JSON, status={"phase": "Running"})
    recovered = transition(
        old,
        POD_JSON,
        old_states={"Running", "NotReady", "CrashLoopBackOff", "OOMKilled"},
        new_states={"Running", "Ready"},
    )
    return replace(recovered, observed_at=at)


def _cancelled() -> float:
    value: float = metrics.SUPPRESSED.labels(reason="pending_cancelled")._value.get()
    return value


def test_it_fires_once_when_the_state_held_for_the_duration() -> None:
    engine = _engine([RULE])
    decision = engine.decide(_entered())
    assert decision.notifications == []
    assert decision.suppressed == [("stays-crashing", "pending: tells in 5m if it stays")]
    assert engine.next_due() == NOW + FIVE_MINUTES
    assert engine.tick(NOW + FIVE_MINUTES - 1).notifications == []
    [told] = engine.tick(NOW + FIVE_MINUTES).notifications
    assert told.rule == "stays-crashing" and told.sink == "console"
    assert "CrashLoopBackOff" in told.facts["summary"] and "for 5m" in told.facts["summary"]
    assert engine.tick(NOW + 10 * FIVE_MINUTES).notifications == []


def test_leaving_first_cancels_quietly_and_is_counted() -> None:
    engine = _engine([RULE])
    before = _cancelled()
    engine.decide(_entered())
    decision = engine.decide(_recovered(NOW + 60))
    assert decision.notifications == []
    assert ("stays-crashing", "pending_cancelled") in decision.suppressed
    assert _cancelled() == before + 1
    assert engine.tick(NOW + 2 * FIVE_MINUTES).notifications == []


def test_re_entering_within_for_times_from_the_new_entry() -> None:
    engine = _engine([RULE])
    engine.decide(_entered(NOW))
    engine.decide(_recovered(NOW + 100))
    engine.decide(_entered(NOW + 200))
    assert engine.tick(NOW + FIVE_MINUTES + 10).notifications == []  # the first entry's due
    assert len(engine.tick(NOW + 200 + FIVE_MINUTES).notifications) == 1


def test_changes_within_its_states_keep_the_timer_and_tell_the_latest() -> None:
    engine = _engine([RULE])
    engine.decide(_entered(NOW))
    entered = _entered(NOW + 100)
    later = replace(
        entered,
        old_states=entered.new_states,
        new_states=frozenset({"Running", "NotReady", "OOMKilled"}),
    )
    assert engine.decide(later).notifications == []  # OOMKilled is the rule's too: no new timer
    [told] = engine.tick(NOW + FIVE_MINUTES).notifications
    assert "OOMKilled" in told.facts["summary"]


def test_a_silence_during_pending_that_ended_lets_it_fire() -> None:
    book = SilenceBook()
    matchers = parse_matchers("namespace=shop")
    book.replace([Silence(id="s1", matchers=matchers, starts_at=NOW - 1, ends_at=NOW + 60)])
    engine = _engine([RULE], silences=book)
    assert engine.decide(_entered()).notifications == []
    assert len(engine.tick(NOW + FIVE_MINUTES).notifications) == 1


def test_a_silence_when_it_comes_due_keeps_this_stay_quiet() -> None:
    book = SilenceBook()
    until = NOW + 2 * FIVE_MINUTES
    book.replace(
        [Silence(id="s1", matchers=parse_matchers("kind=Pod"), starts_at=NOW, ends_at=until)]
    )
    engine = _engine([RULE], silences=book)
    engine.decide(_entered())
    assert engine.tick(NOW + FIVE_MINUTES).notifications == []
    assert engine.tick(until + 1).notifications == []  # told (silenced) once: not again


def test_a_shorter_for_on_reload_moves_the_due_time() -> None:
    rules = Rules([RULE])
    engine = _engine(rules)
    engine.decide(_entered())
    rules.current = ruleset([{**RULE, "match": {**RULE["match"], "for": "1m"}}])
    assert len(engine.tick(NOW + 60).notifications) == 1


def test_a_rule_removed_or_no_longer_naming_the_state_drops_its_timer() -> None:
    for edited in (
        [{**RULE, "name": "renamed"}],
        [{**RULE, "match": {**RULE["match"], "to": ["ImagePullBackOff"]}}],
        [{**RULE, "match": {k: v for k, v in RULE["match"].items() if k != "for"}}],
    ):
        timers = MemoryTimers()
        rules = Rules([RULE])
        engine = _engine(rules, timers=timers)
        engine.decide(_entered())
        rules.current = ruleset(edited)
        assert engine.tick(NOW + FIVE_MINUTES).notifications == []
        assert timers.rows == {}


def test_a_restart_keeps_the_timer_and_fires_what_came_due_once_after_catch_up() -> None:
    timers = MemoryTimers()
    _engine([RULE], timers=timers).decide(_entered())
    restarted = _engine([RULE], timers=timers)
    restarted.restore()
    late = NOW + 2 * FIVE_MINUTES
    assert restarted.tick(late).notifications == []  # not before the catch-up is acted on
    restarted.caught_up()
    released = restarted.tick(late)
    assert len(released.notifications) == 1
    restarted.forget(released)
    [row] = timers.rows.values()
    assert row.fired
    again = _engine([RULE], timers=timers)
    again.restore()
    again.caught_up()
    assert again.tick(late + 1).notifications == []


def test_a_crash_before_the_firing_was_submitted_fires_it_again() -> None:
    timers = MemoryTimers()
    first = _engine([RULE], timers=timers)
    first.decide(_entered())
    assert len(first.tick(NOW + FIVE_MINUTES).notifications) == 1  # never submitted: no forget
    restarted = _engine([RULE], timers=timers)
    restarted.restore()
    restarted.caught_up()
    assert len(restarted.tick(NOW + FIVE_MINUTES + 5).notifications) == 1


def test_leaving_while_down_cancels_at_catch_up() -> None:
    timers = MemoryTimers()
    _engine([RULE], timers=timers).decide(_entered())
    restarted = _engine([RULE], timers=timers)
    restarted.restore()
    restarted.decide(_recovered(NOW + 2 * FIVE_MINUTES))
    restarted.caught_up()
    assert restarted.tick(NOW + 2 * FIVE_MINUTES).notifications == []
    assert timers.rows == {}


def test_send_resolved_resolves_what_fired_and_nothing_cancelled() -> None:
    engine = _engine([{**RULE, "send_resolved": True}])
    engine.decide(_entered(NOW))
    assert engine.decide(_recovered(NOW + 10)).notifications == []  # cancelled: nothing to resolve
    engine.decide(_entered(NOW + 20))
    [firing] = engine.tick(NOW + 20 + FIVE_MINUTES).notifications
    assert engine.decide(_recovered(NOW + 1000)).notifications == []  # recovering
    [resolution] = engine.tick(NOW + 1000 + 60).notifications  # the recovery window later
    assert resolution.facts["status"] == "resolved"
    assert firing.facts["fingerprint"] == resolution.facts["fingerprint"]


def test_a_deleted_object_cancels_its_timer() -> None:
    engine = _engine([RULE])
    engine.decide(_entered())
    gone = transition(POD_JSON, None, old_states={"Running", "CrashLoopBackOff"})
    assert ("stays-crashing", "pending_cancelled") in engine.decide(gone).suppressed
    assert engine.tick(NOW + FIVE_MINUTES).notifications == []


@pytest.mark.parametrize(
    ("match", "action", "fragment"),
    [
        ({"kinds": ["Pod"], "for": "5m"}, "notify", "'for' needs 'to'"),
        (
            {"kinds": ["Pod"], "to": ["RestartCountIncreased"], "for": "5m"},
            "notify",
            "a signal, not a state: 'for' can only time states",
        ),
        ({"kinds": ["Pod"], "to": ["CrashLoopBackOff"], "for": "5m"}, "drop", "cannot wait"),
        ({"kinds": ["Pod"], "to": ["CrashLoopBackOff"], "for": "soon"}, "notify", "duration"),
    ],
)
def test_for_is_checked_at_load(match: dict[str, Any], action: str, fragment: str) -> None:
    rule: dict[str, Any] = {"name": "r", "match": match, "action": action}
    if action == "notify":
        rule["sinks"] = ["console"]
    with pytest.raises((RulesError, ValueError), match=fragment):
        ruleset([rule])


def _node(ready: str, since: str) -> dict[str, Any]:
    condition = {"type": "Ready", "status": ready, "lastTransitionTime": since}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "uid": "u"},
            "status": {"conditions": [condition]}}  # fmt: skip


def test_time_counts_from_the_objects_own_timestamp_where_it_keeps_one() -> None:
    rule = {"name": "node-down", "match": {"kinds": ["Node"], "to": ["NotReady"], "for": "5m"},
            "sinks": ["console"]}  # fmt: skip
    engine = _engine([rule])
    ten_minutes_ago = "2024-05-01T09:56:40Z"  # NOW - 600
    went = transition(
        _node("True", "2024-05-01T09:00:00Z"),
        _node("False", ten_minutes_ago),
        old_states={"Ready"},
        new_states={"NotReady"},
    )
    engine.decide(replace(went, observed_at=NOW + 30))  # seen late (a restart's catch-up)
    [told] = engine.tick(NOW + 30).notifications
    assert "for 10m30s" in told.facts["summary"]


def test_a_claim_pending_since_its_creation_is_timed_from_it() -> None:
    rule = {"name": "unbound", "match": {"kinds": ["PersistentVolumeClaim"], "to": ["Pending"],
            "for": "30m"}, "sinks": ["console"]}  # fmt: skip
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
             "metadata": {"name": "data", "namespace": "shop", "uid": "c",
                          "creationTimestamp": "2024-05-01T09:00:00Z"},
             "status": {"phase": "Pending"}}  # fmt: skip
    engine = _engine([rule])
    engine.decide(transition(None, claim, new_states={"Pending"}))
    assert engine.next_due() == NOW - 4000 + 1800  # 09:00 + 30m


def test_an_object_already_in_the_state_at_start_is_timed_and_others_stay_quiet() -> None:
    instant = {"name": "instant", "match": {"kinds": ["Pod"], "to": ["CrashLoopBackOff"]},
               "sinks": ["console"], "continue": True}  # fmt: skip
    engine = _engine([instant, RULE])
    listed = replace(crashloop(), origin=Origin.INITIAL_LIST, old=None, old_states=frozenset())
    assert engine.decide(listed).notifications == []  # the first start stays quiet
    [told] = engine.tick(NOW + FIVE_MINUTES).notifications  # but its level is timed
    assert told.rule == "stays-crashing"


def test_a_mute_window_counts_when_it_comes_due_not_when_it_starts() -> None:
    window = {"start": "2024-05-01T10:00:00Z", "end": "2024-05-01T10:08:00Z"}  # until NOW + 80s
    compiled = ruleset([{**RULE, "mute": ["w"]}], mute_windows={"w": [window]})
    engine = RulesEngine(lambda: compiled, clock=lambda: NOW)
    assert engine.decide(_entered()).muted == ("stays-crashing",)
    assert len(engine.tick(NOW + FIVE_MINUTES).notifications) == 1


def test_for_zero_tells_at_once_as_prometheus_does() -> None:
    engine = _engine([{**RULE, "match": {**RULE["match"], "for": "0s"}}])
    assert len(engine.process(_entered())) == 1


def test_a_timer_whose_object_left_after_it_came_due_is_not_told() -> None:
    compiled = ruleset([RULE])
    keeper = TimeKeeper(None, Resolver())
    entered = _entered()
    keeper.follow(entered, compiled, compiled.evaluate(entered, _context()), Decision(()), NOW)
    [(timer, rule)] = keeper.due(compiled, NOW + FIVE_MINUTES)
    assert rule is not None and keeper.still_held(timer)
    left = _recovered(NOW + FIVE_MINUTES)  # a worker, between the clock's due and its telling
    keeper.follow(left, compiled, compiled.evaluate(left, _context()), Decision(()), NOW)
    assert not keeper.still_held(timer)


def _context() -> EvalContext:
    return EvalContext(NOW, no_namespace_labels, default_owner_of)
