"""What an incident remembers besides its ``firing`` row survives a restart on the same state
file: a ``for:``'s stay cut by a blip (``stays``) and the ends of an owner's objects kept for
its last one (``folded_ends``); the kubelet's sequences played up to the restart by one
engine, then by a new one over the same file."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import yaml

from notifier.config import read_config_text
from notifier.kinds.registry import KINDS
from notifier.notifications import Notification
from notifier.origin import Origin
from notifier.rules.engine import RulesEngine
from notifier.rules.ruleset import Ruleset
from notifier.state.firing import DurableFirings
from notifier.state.folded_ends import DurableFoldedEnds
from notifier.state.schema import SCHEMA_VERSION
from notifier.state.store import StateStore
from notifier.state.timers import DurableTimers
from notifier.transitions.detecting import detect_all
from tests.unit.rules import kubelet
from tests.unit.rules.builders import NOW, decode
from tests.unit.rules.test_incidents import per_sink
from tests.unit.state.helpers import open_store


def _ruleset(rule: dict[str, Any]) -> Ruleset:
    config = {"sinks": [{"name": "chat", "type": "console"}],
              "defaults": {"recovery_window": "60s"},
              "rules": [{"name": "crash-loops", "sinks": ["chat"], **rule}]}  # fmt: skip
    return read_config_text(yaml.safe_dump(config), "c.yaml", environ={}).ruleset


def _engine(ruleset: Ruleset, store: StateStore) -> RulesEngine:
    engine = RulesEngine(
        lambda: ruleset,
        clock=lambda: NOW,
        firings=DurableFirings(store.firing, KINDS),
        timers=DurableTimers(store.timers, kinds=KINDS),
        stays=store.stays,
        folded_ends=DurableFoldedEnds(store.folded_ends, KINDS),
    )
    engine.restore()
    engine.caught_up()
    return engine


def play_across_a_restart(
    ruleset: Ruleset, path: Path, restart_at: float, *sequences: list[kubelet.Step]
) -> list[Notification]:
    """Every notification the sequences make (the clock ticking each second), the engine and
    its store closed and opened again on ``path`` at ``restart_at`` seconds in."""
    steps = sorted(
        ((at, index, data) for index, seq in enumerate(sequences) for at, data in seq),
        key=lambda step: (step[0], step[1]),
    )
    store = open_store(path)
    engine, restarted = _engine(ruleset, store), False
    last: dict[int, Any] = {}
    told: list[Notification] = []
    second = 0.0
    for at, index, data in [*steps, (steps[-1][0] + 600.0, -1, None)]:
        while second + 1.0 <= at:
            second += 1.0
            if not restarted and second >= restart_at:
                store.close()
                store = open_store(path)
                engine, restarted = _engine(ruleset, store), True
            released = engine.tick(NOW + second)
            engine.forget(released)
            told += released.notifications
        if data is None:
            break
        new = decode(data)
        for change in detect_all(last.get(index), new, origin=Origin.LIVE,
                                 observed_at=NOW + at, correlation_id="t"):  # fmt: skip
            told += engine.process(change, now=NOW + at)
        last[index] = new
    store.close()
    assert restarted
    return told


STAYS_15M = {"match": {"kinds": ["Pod"], "to": ["CrashLoopBackOff"], "for": "15m"}}


def test_a_for_stay_cut_by_a_blip_goes_on_across_a_restart(tmp_path: Path) -> None:
    """Restarted inside a running blip 10 minutes into a loop that recovers 15m20s in: the
    stay reaches 15 minutes across the restart, so it is told once (counted from the restart,
    it would not)."""
    loop = kubelet.crash_loop(back_offs=(*kubelet.BACK_OFFS, 300.0, 300.0), recovers=True)
    blip = next(at for at, data in loop if at > 10 * 60 and _running(data))
    assert loop[-1][0] - blip < 15 * 60 < loop[-1][0] - kubelet.RUNS_FOR - 1.0
    told = play_across_a_restart(_ruleset(STAYS_15M), tmp_path / "s.db", blip + 1.0, loop)
    assert per_sink(told) == {("chat", "firing"): 1}


def _running(data: dict[str, Any]) -> bool:
    [status] = data["status"].get("containerStatuses", [{}])
    return "running" in status.get("state", {})


FOLDED = {
    "match": {"kinds": ["Pod"], "to": ["CrashLoopBackOff", "OOMKilled"]},
    "send_resolved": True,
    "fold_into": "owner",
}


def test_an_owners_earlier_ends_are_told_with_its_last_after_a_restart(tmp_path: Path) -> None:
    """web-a's incident ends (its window passed) while web-b loops on; restarted then, the
    owner's one resolution still has both Pods and starts at web-a's telling."""
    short = kubelet.crash_loop("web-a", back_offs=(10.0, 20.0), recovers=True)
    long = [(at + 5.0, data) for at, data in kubelet.crash_loop("web-b", recovers=True)]
    restart_at = short[-1][0] + 90.0
    assert restart_at < long[-1][0]
    told = play_across_a_restart(_ruleset(FOLDED), tmp_path / "s.db", restart_at, short, long)
    assert per_sink(told) == {("chat", "firing"): 1, ("chat", "resolved"): 1}
    [firing, resolved] = told
    assert resolved.facts["folded"] == {"count": 2, "names": ["web-a", "web-b"], "more": 0}
    assert resolved.facts["fired_at"] == firing.facts["observed_at"]
    store = open_store(tmp_path / "s.db")
    assert store.folded_ends.all_rows() == [] and store.stays.all_stays() == []
    store.close()


def test_a_schema_6_file_gains_the_stays_the_ends_and_the_timers_grace(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            """
            CREATE TABLE timers (rule TEXT NOT NULL, step INTEGER NOT NULL, kind TEXT NOT NULL,
                key TEXT NOT NULL, since REAL NOT NULL, fired INTEGER NOT NULL,
                told INTEGER NOT NULL, wanted TEXT NOT NULL, transition BLOB NOT NULL,
                PRIMARY KEY (rule, step, kind, key));
            INSERT INTO timers VALUES ('r', 0, 'Pod', 'shop/web', 5.0, 0, 0, '[]', x'7b7d');
            PRAGMA user_version = 6;
            """
        )
    store = open_store(path)
    [row] = store.timers.all_rows()
    assert (row.since, row.grace) == (5.0, 0.0)
    assert store.stays.all_stays() == [] and store.folded_ends.all_rows() == []
    store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
