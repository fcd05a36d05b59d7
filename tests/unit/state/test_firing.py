"""Incidents in the state database: a resolution after a restart."""

from __future__ import annotations

from pathlib import Path

from notifier.kinds.registry import KINDS
from notifier.rules.engine import RulesEngine
from notifier.state.durable.firings import DurableFirings
from notifier.state.firing import FiringRow
from tests.unit.rules.builders import NOW, crashloop, ruleset
from tests.unit.rules.test_resolved import RULE, _recovered
from tests.unit.state.helpers import open_store


def _engine(firings: DurableFirings) -> RulesEngine:
    compiled = ruleset([RULE])
    return RulesEngine(lambda: compiled, clock=lambda: NOW, firings=firings)


def test_a_crash_loop_told_before_a_restart_is_resolved_after_it(tmp_path: Path) -> None:
    first = open_store(tmp_path / "s.db")
    assert len(_engine(DurableFirings(first.firing, KINDS)).process(crashloop())) == 1
    first.close()

    second = open_store(tmp_path / "s.db")
    [resolution] = _engine(DurableFirings(second.firing, KINDS)).process(_recovered())
    assert resolution.message.payload["status"] == "resolved"
    second.close()

    third = open_store(tmp_path / "s.db")
    assert DurableFirings(third.firing, KINDS).all_firing() == []  # resolved once, then forgotten
    third.close()


def test_an_unreadable_row_is_dropped(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.db")
    store.firing.upsert(FiringRow("r", "Pod", "shop/web", "{not json", NOW))
    store.close()
    store = open_store(tmp_path / "s.db")
    assert DurableFirings(store.firing, KINDS).all_firing() == []
    store.close()
    store = open_store(tmp_path / "s.db")
    assert store.firing.all_rows() == []
    store.close()
