from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from notifier.state import Failure
from tests.unit.sinks.factories import notification
from tests.unit.state.helpers import FakeClock, open_store

HOUR = 3600.0


def test_old_thread_roots_dead_letters_and_abandoned_rows_go(tmp_path: Path) -> None:
    clock = FakeClock()
    store = open_store(
        tmp_path / "s.db",
        clock,
        thread_retention_hours=1,
        dead_letter_retention_hours=2,
        outbox_retention_hours=3,
    )
    store.threads.remember_thread("s", "old", "1.0")
    old_letter = notification("gone")
    store.outbox.dead_letter(store.outbox.add(old_letter), old_letter, Failure("x", "", 1))
    abandoned = notification("removed-sink")
    store.outbox.add(abandoned)
    store.flush()

    clock.now += 2.5 * HOUR
    store.threads.remember_thread("s", "new", "2.0")
    fresh = notification("hook")
    store.outbox.add(fresh)
    store.prune()
    store.flush()
    after_two_and_a_half_hours = (
        store.threads.thread_ts("s", "old"),
        store.threads.thread_ts("s", "new"),
        store.dead_letters.count(),
        store.outbox.pending_by_sink(),
    )
    clock.now += 1 * HOUR
    store.prune()
    store.flush()
    letters = store.dead_letters.recent()
    store.close()

    assert after_two_and_a_half_hours == (None, "2.0", 0, {"removed-sink": 1, "hook": 1})
    assert [(letter.reason, letter.notification_id) for letter in letters] == [
        ("abandoned", abandoned.id)
    ]


def test_the_writer_prunes_on_its_own(tmp_path: Path) -> None:
    clock = FakeClock()
    store = open_store(
        tmp_path / "s.db", clock, thread_retention_hours=1, prune_interval_seconds=0.05
    )
    store.threads.remember_thread("s", "old", "1.0")
    store.flush()
    clock.now += 2 * HOUR

    assert _eventually(lambda: store.threads.thread_ts("s", "old") is None)
    store.close()


def _eventually(check: Callable[[], bool], seconds: float = 3.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.02)
    return False
