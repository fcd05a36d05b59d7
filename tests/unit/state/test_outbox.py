from __future__ import annotations

import dataclasses
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from notifier.notifications import ContextRequest
from notifier.state import Failure, StateStore
from tests.unit.sinks.factories import notification
from tests.unit.state.helpers import open_store


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "state.db"


@pytest.fixture
def store(db: Path) -> Iterator[StateStore]:
    opened = open_store(db)
    yield opened
    opened.close()


def test_then_runs_after_the_row_is_committed(store: StateStore, db: Path) -> None:
    committed: list[tuple[int, int]] = []
    done = threading.Event()

    def then(seq: int) -> None:
        rows = sqlite3.connect(db).execute("SELECT count(*) FROM outbox WHERE seq = ?", (seq,))
        committed.append((seq, rows.fetchone()[0]))
        done.set()

    seq = store.outbox.add(notification(), then=then)

    assert done.wait(5)
    assert committed == [(seq, 1)]


def test_pending_rows_come_back_in_order_after_a_restart(db: Path) -> None:
    sent = [notification("hook", key=f"Pod/ns/p{n % 3}") for n in range(10)]
    first = open_store(db)
    seqs = [first.outbox.add(note) for note in sent]
    first.outbox.add(notification("other"))
    first.outbox.delivered(seqs[0])
    first.close()

    second = open_store(db)
    page = second.outbox.pending("hook", after=0, limit=100)
    second.close()

    assert [note for _, note in page.items] == sent[1:]
    assert [seq for seq, _ in page.items] == seqs[1:]
    assert page.exhausted


def test_a_context_request_survives_a_restart_so_the_context_is_fetched_then(db: Path) -> None:
    request = ContextRequest(("logs", "owners"), "Pod", "shop", "web-1", "u1", "7",
                             logs=(("app", True),), owner=("ReplicaSet", "web-7d9f"))  # fmt: skip
    asking = dataclasses.replace(notification("hook"), context=request)
    first = open_store(db)
    first.outbox.add(asking)
    first.close()
    second = open_store(db)
    [(_, read)] = second.outbox.pending("hook", after=0, limit=10).items
    second.close()
    assert read == asking and read.context == request


def test_sequence_numbers_continue_above_what_is_left(db: Path) -> None:
    first = open_store(db)
    last = [first.outbox.add(notification()) for _ in range(3)][-1]
    first.close()

    second = open_store(db)
    assert second.outbox.add(notification()) > last
    second.close()


def test_pending_pages_through_the_rows(store: StateStore) -> None:
    seqs = [store.outbox.add(notification()) for _ in range(5)]
    store.flush()

    first = store.outbox.pending("hook", after=0, limit=2)
    rest = store.outbox.pending("hook", after=first.last_seq, limit=10)

    assert [seq for seq, _ in first.items] == seqs[:2] and not first.exhausted
    assert [seq for seq, _ in rest.items] == seqs[2:] and rest.exhausted


def test_dead_letter_moves_the_row(store: StateStore) -> None:
    note = notification()
    seq = store.outbox.add(note)

    store.outbox.dead_letter(seq, note, Failure("channel_not_found", "detail", 1))
    store.flush()

    assert store.outbox.count_pending("hook") == 0
    (letter,) = store.dead_letters.recent()
    assert (letter.notification_id, letter.sink, letter.ordering_key) == (
        note.id,
        "hook",
        note.ordering_key,
    )
    assert (letter.reason, letter.detail, letter.attempts) == ("channel_not_found", "detail", 1)


def test_an_undecodable_row_is_moved_to_the_dead_letters(store: StateStore, db: Path) -> None:
    good = notification()
    store.outbox.add(good)
    store.flush()
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO outbox VALUES (999, 'hook', x'00ff', 0)")

    page = store.outbox.pending("hook", after=0, limit=10)
    store.flush()

    assert [note for _, note in page.items] == [good]
    assert page.last_seq == 999
    assert [letter.reason for letter in store.dead_letters.recent()] == ["undecodable"]
    assert store.outbox.count_pending("hook") == 1


def test_pending_by_sink_counts_rows(store: StateStore) -> None:
    for sink in ("a", "a", "b"):
        store.outbox.add(notification(sink))
    store.flush()

    assert store.outbox.pending_by_sink() == {"a": 2, "b": 1}
