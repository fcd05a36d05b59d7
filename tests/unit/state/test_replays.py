"""What a replay did with each dead letter, kept in the state file beside them: written by
the replay's own connection (another process, or the page), read by the service; bounded."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from notifier.state import Failure, StateStore
from notifier.state.dead_letters import DeadLetterFile
from notifier.state.replays import Replayed, prune_replays
from notifier.state.schema import SCHEMA_VERSION
from tests.unit.sinks.factories import notification
from tests.unit.state.helpers import FakeClock, open_store


def _dead_letter(store: StateStore, sink: str = "hook") -> str:
    note = notification(sink)
    seq = store.outbox.add(note)
    store.outbox.dead_letter(seq, note, Failure("http_400", "bad request", 1))
    store.flush()
    return note.id


def test_the_latest_replay_of_a_letter_is_what_the_service_reads(
    tmp_path: Path, store: StateStore
) -> None:
    note_id = _dead_letter(store)
    clock = FakeClock(100.0)
    beside = DeadLetterFile(tmp_path / "state.db", clock=clock)  # as the CLI opens it
    [letter] = beside.select()
    beside.failed_again(letter, "http_503: " + "down " * 100)
    failed = store.replays.latest(note_id, "hook")
    assert failed is not None and (failed.delivered, failed.at) == (False, 100.0)
    assert failed.detail.startswith("http_503: down") and len(failed.detail) == 300
    assert store.dead_letters.count() == 1  # it stays

    clock.now = 160.0
    beside.resent(letter)
    beside.close()
    assert store.replays.latest(note_id, "hook") == Replayed(True, "", 160.0)
    assert store.dead_letters.count() == 0  # gone in the same transaction
    assert store.replays.latest(note_id, "another-sink") is None


def test_replays_are_pruned_by_age_and_to_the_newest_kept(tmp_path: Path) -> None:
    clock = FakeClock(1_000_000.0)
    store = open_store(tmp_path / "state.db", clock, dead_letter_retention_hours=1)
    ids = [_dead_letter(store) for _ in range(4)]
    beside = DeadLetterFile(tmp_path / "state.db", clock=clock)
    for ago, letter in zip((7200, 1800, 1200, 600), beside.select(), strict=True):
        clock.now = 1_000_000.0 - ago  # the first is older than the retention
        beside.resent(letter)
    beside.close()
    clock.now = 1_000_000.0

    store.prune()
    store.flush()
    assert [store.replays.latest(i, "hook") is not None for i in ids] == [False, True, True, True]
    with sqlite3.connect(tmp_path / "state.db") as conn:
        prune_replays(conn, older_than=0, kept=2)
    assert [store.replays.latest(i, "hook") is not None for i in ids] == [False, False, True, True]
    store.close()


def test_a_version_7_file_is_migrated_keeping_its_dead_letters(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    store = open_store(path)
    note_id = _dead_letter(store)
    store.close()
    with sqlite3.connect(path) as conn:  # what version 7 had: every table but replays
        conn.executescript("DROP TABLE replays; PRAGMA user_version = 7;")

    store = open_store(path)
    assert [letter.notification_id for letter in store.dead_letters.recent()] == [note_id]
    assert store.replays.latest(note_id, "hook") is None
    store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,) == (8,)
    beside = DeadLetterFile(path)
    beside.resent(beside.select()[0])
    beside.close()
    store = open_store(path)
    latest = store.replays.latest(note_id, "hook")
    store.close()
    assert latest is not None and latest.delivered
