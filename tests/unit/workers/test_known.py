"""Known: the last state acted on, and what of it is saved (only what changed)."""

from __future__ import annotations

from collections.abc import Iterable

from notifier.objects import KubeObject
from notifier.workers.keys import WorkKey
from notifier.workers.known import Known
from tests.unit.workers.test_intake import WEB, WEB_KEY, _pod, _pod_key


class Saving:
    """A durable store that keeps what it was asked to save, in order."""

    def __init__(self, loaded: list[tuple[WorkKey, KubeObject]] | None = None) -> None:
        self.loaded = loaded or []
        self.saved: list[tuple[WorkKey, KubeObject | None]] = []
        self.writes = 0

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
        self.writes += 1


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


def test_a_batch_is_saved_as_one_write_without_what_is_already_recorded() -> None:
    store = Saving(loaded=[(WEB_KEY, WEB)])
    known = Known(store)
    other_key, other = _pod_key("web-2"), _pod("web-2")
    known.set_all([(WEB_KEY, WEB), (other_key, other)])
    assert store.saved == [(other_key, other)]
    assert store.writes == 1
    assert known.get(other_key) is other


def test_a_batch_with_nothing_new_writes_nothing() -> None:
    store = Saving(loaded=[(WEB_KEY, WEB)])
    Known(store).set_all([(WEB_KEY, WEB)])
    assert store.writes == 0
