"""The rules' clock thread: fires ``for:`` timers on its own, and a death shows in /healthz."""

from __future__ import annotations

import time
from dataclasses import replace

from notifier.dispatch.stage import Ticker
from notifier.notifications import Notification
from notifier.rules.engine import RulesEngine
from notifier.rules.timing.holding import Released
from notifier.service.health import _threads
from notifier.supervision import crashed, forget_crashes
from tests.unit.delivery.harness import eventually
from tests.unit.rules.builders import ruleset
from tests.unit.rules.test_timing import RULE, _entered


def test_the_clock_thread_fires_a_timer_when_it_comes_due() -> None:
    compiled = ruleset([{**RULE, "match": {**RULE["match"], "for": "300ms"}}])
    engine = RulesEngine(lambda: compiled)
    told: list[Notification] = []
    ticker = Ticker(engine, told.append, interval=0.05)
    ticker.start()
    try:
        engine.decide(replace(_entered(), observed_at=time.time()))
        assert told == []
        eventually(lambda: len(told) == 1)
    finally:
        ticker.stop(release_all=False)
    assert told[0].rule == "stays-crashing"


def test_a_clock_thread_that_dies_fails_liveness() -> None:
    forget_crashes()

    class Broken(RulesEngine):
        def tick(self, now: float | None = None, *, timers: bool = True) -> Released:
            raise RuntimeError("clock broke")

    compiled = ruleset([RULE])
    ticker = Ticker(Broken(lambda: compiled), lambda _n: None, interval=0.01)
    ticker.start()
    eventually(lambda: not ticker.alive)
    result = _threads()
    assert not result.ok and "rules-ticker died (RuntimeError: clock broke)" in result.detail
    assert "rules-ticker" in crashed()
    forget_crashes()
