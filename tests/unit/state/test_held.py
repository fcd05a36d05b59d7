"""Held group members in the state database: kept across a restart, forgotten by token."""

from __future__ import annotations

from pathlib import Path

from notifier.kinds.registry import KINDS
from notifier.rules.timing.holding import Held
from notifier.state import HeldRow
from notifier.state.held import DurableHolding
from tests.unit.rules.builders import NOW, crashloop
from tests.unit.state.helpers import open_store


def test_held_members_survive_a_restart_until_forgotten(tmp_path: Path) -> None:
    first = open_store(tmp_path / "s.db")
    holding = DurableHolding(first.held, kinds=KINDS)
    transition = crashloop()
    for token in (1, 2, 3):
        holding.hold(Held(token, "failures", transition, NOW + token))
    holding.forget([2])
    first.close()

    second = open_store(tmp_path / "s.db")
    restored = DurableHolding(second.held, kinds=KINDS).held()
    second.close()

    assert [(m.token, m.rule, m.held_at) for m in restored] == [
        (1, "failures", NOW + 1),
        (3, "failures", NOW + 3),
    ]
    assert restored[0].transition == transition


def test_an_unreadable_member_is_dropped_with_a_warning(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.db")
    store.held.hold(HeldRow(7, "failures", b"{not json", NOW))
    store.flush()
    assert DurableHolding(store.held, kinds=KINDS).held() == []
    store.flush()
    assert store.held.all_held() == []
    store.close()
