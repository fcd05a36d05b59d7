"""``for:`` timers in the state database: a restart neither resets, loses nor doubles them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from notifier.kinds.registry import KINDS
from notifier.rules.engine import RulesEngine
from notifier.rules.timing.timers import Timer
from notifier.state.timers import DurableTimers, TimerRow
from tests.unit.rules.builders import NOW, ruleset
from tests.unit.rules.test_timing import FIVE_MINUTES, RULE, _entered
from tests.unit.state.helpers import open_store


def _engine(timers: DurableTimers) -> RulesEngine:
    compiled = ruleset([RULE])
    engine = RulesEngine(lambda: compiled, clock=lambda: NOW, timers=timers)
    engine.restore()
    engine.caught_up()
    return engine


def test_a_timer_survives_restarts_and_fires_once(tmp_path: Path) -> None:
    first = open_store(tmp_path / "s.db")
    _engine(DurableTimers(first.timers, kinds=KINDS)).decide(_entered())
    first.close()

    second = open_store(tmp_path / "s.db")
    [timer] = DurableTimers(second.timers, kinds=KINDS).all_timers()
    assert (timer.since, timer.fired) == (NOW, False)
    seen = replace(_entered(), changes=(), signals=frozenset())
    assert timer.transition == seen  # what is told after the restart is what was seen
    engine = _engine(DurableTimers(second.timers, kinds=KINDS))
    assert engine.next_due() == NOW + FIVE_MINUTES  # not reset by the restart
    released = engine.tick(NOW + 2 * FIVE_MINUTES)
    assert len(released.notifications) == 1
    engine.forget(released)
    second.close()

    third = open_store(tmp_path / "s.db")
    assert (
        _engine(DurableTimers(third.timers, kinds=KINDS)).tick(NOW + 3 * FIVE_MINUTES).notifications
        == []
    )
    third.close()


def test_an_unreadable_row_is_dropped(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.db")
    store.timers.upsert(TimerRow("r", 0, "Pod", "shop/web", NOW, False, 0, "[]", b"{not json"))
    store.close()
    store = open_store(tmp_path / "s.db")
    assert DurableTimers(store.timers, kinds=KINDS).all_timers() == []
    store.flush()
    assert store.timers.all_rows() == []
    store.close()


def test_a_for_timers_grace_is_kept(tmp_path: Path) -> None:
    """How long a blip may cut it (the rule's recovery window) is read back with the timer."""
    store = open_store(tmp_path / "s.db")
    timer = replace(_engine_timer(), grace=60.0)
    DurableTimers(store.timers, kinds=KINDS).save(timer)
    store.close()
    store = open_store(tmp_path / "s.db")
    [back] = DurableTimers(store.timers, kinds=KINDS).all_timers()
    store.close()
    assert back.grace == 60.0 and back.since == timer.since


def _engine_timer() -> Timer:
    seen = replace(_entered(), changes=(), signals=frozenset())
    return Timer(RULE["name"], seen, frozenset({"CrashLoopBackOff"}), NOW)
