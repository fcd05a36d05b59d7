"""Incidents in the state database: a resolution after a restart."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from notifier.kinds.registry import KINDS
from notifier.rules.engine import RulesEngine
from notifier.state.firing import DurableFirings, FiringRow
from tests.unit.rules.builders import NOW, POD_JSON, crashloop, ruleset
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
    assert resolution.facts["status"] == "resolved"
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


def _incidents_engine(firings: DurableFirings) -> RulesEngine:
    compiled = ruleset([{**RULE, "recovery_window": "60s"}])
    return RulesEngine(lambda: compiled, clock=lambda: NOW, firings=firings)


def test_an_open_incident_is_not_told_again_after_a_restart(tmp_path: Path) -> None:
    first = open_store(tmp_path / "s.db")
    assert len(_incidents_engine(DurableFirings(first.firing, KINDS)).process(crashloop())) == 1
    first.close()

    second = open_store(tmp_path / "s.db")
    again = crashloop(metadata={**POD_JSON["metadata"], "resourceVersion": "48999"})
    decision = _incidents_engine(DurableFirings(second.firing, KINDS)).decide(again)
    assert decision.notifications == []
    assert ("crash-loops", "incident: OOMKilled") in decision.suppressed
    second.close()


def test_a_recovering_incident_ends_after_a_restart_told_from_its_saved_transition(
    tmp_path: Path,
) -> None:
    first = open_store(tmp_path / "s.db")
    engine = _incidents_engine(DurableFirings(first.firing, KINDS))
    engine.process(crashloop())
    assert engine.process(_recovered()) == []  # recovering: ends 60 s later
    first.close()

    second = open_store(tmp_path / "s.db")
    after = _incidents_engine(DurableFirings(second.firing, KINDS))
    assert after.next_due() == NOW + 60.0
    [resolution] = after.tick(NOW + 60.0).notifications
    assert resolution.facts["status"] == "resolved"
    assert resolution.facts["resource_version"] == "48300"
    second.close()
    third = open_store(tmp_path / "s.db")
    assert DurableFirings(third.firing, KINDS).all_firing() == []
    third.close()


def test_a_row_of_schema_5_is_read_as_an_incident_in_trouble(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            """
            CREATE TABLE firing (rule TEXT NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL,
                states TEXT NOT NULL, fired_at REAL NOT NULL, PRIMARY KEY (rule, kind, key));
            INSERT INTO firing VALUES ('crash-loops', 'Pod', 'shop/web', '["OOMKilled"]', 5.0);
            PRAGMA user_version = 5;
            """
        )
    store = open_store(path)
    [firing] = DurableFirings(store.firing, KINDS).all_firing()
    store.close()
    assert firing.states == frozenset({"OOMKilled"}) and firing.worst == "OOMKilled"
    assert firing.recovering_since is None  # in trouble until a transition says otherwise
    assert firing.transition is None and firing.fired_at == 5.0
