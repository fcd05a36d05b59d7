"""Known: the last state acted on, and what of it is saved (only what changed)."""

from __future__ import annotations

from collections.abc import Iterable

from notifier.objects import KubeObject
from notifier.workers.keys import WorkKey
from notifier.workers.known import Known
from tests.unit.workers.test_intake import WEB, WEB_KEY, _pod


class Saving:
    """A durable store that keeps what it was asked to save, in order."""

    def __init__(self, loaded: list[tuple[WorkKey, KubeObject]] | None = None) -> None:
        self.loaded = loaded or []
        self.saved: list[tuple[WorkKey, KubeObject | None]] = []

    def load_seen(self) -> list[tuple[WorkKey, KubeObject]]:
        return self.loaded

    def has_baseline(self) -> bool:
        return bool(self.loaded)

    def mark_baseline(self, scopes: Iterable[str]) -> None:
        pass

    def baselines(self) -> frozenset[str]:
        return frozenset()

    def forget_baseline(self, scope: str) -> None:
        pass

    def save_seen(self, changes: list[tuple[WorkKey, KubeObject | None]]) -> None:
        self.saved.extend(changes)


def test_a_new_or_changed_object_is_saved() -> None:
    store = Saving()
    known = Known(store)
    changed = _pod("web-1", "101")
    known.set(WEB_KEY, WEB)
    known.set(WEB_KEY, changed)
    assert store.saved == [(WEB_KEY, WEB), (WEB_KEY, changed)]
    assert known.get(WEB_KEY) is changed


def test_the_instance_already_recorded_is_not_saved_again() -> None:
    store = Saving(loaded=[(WEB_KEY, WEB)])  # a restart: what was saved is loaded
    known = Known(store)
    known.set(WEB_KEY, WEB)  # the list reused the saved instance: nothing changed
    known.set(WEB_KEY, WEB)
    assert store.saved == []


def test_an_equal_but_other_instance_is_saved() -> None:
    store = Saving(loaded=[(WEB_KEY, WEB)])
    known = Known(store)
    listed = _pod("web-1")  # equal to WEB, decoded anew: Known keeps the instance it is given
    known.set(WEB_KEY, listed)
    assert store.saved == [(WEB_KEY, listed)]
    assert known.get(WEB_KEY) is listed


def test_a_deletion_is_saved() -> None:
    store = Saving(loaded=[(WEB_KEY, WEB)])
    known = Known(store)
    known.set(WEB_KEY, None)
    assert store.saved == [(WEB_KEY, None)]
    assert known.get(WEB_KEY) is None
