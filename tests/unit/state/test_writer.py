from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from notifier.state import writer as writer_module
from notifier.state.writer import BatchWriter, Chore


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "w.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (n INTEGER UNIQUE)")
    return path


@pytest.fixture
def writer(db: Path) -> Iterator[BatchWriter]:
    started = BatchWriter(sqlite3.connect(db, isolation_level=None, check_same_thread=False))
    started.start()
    yield started
    started.close()


def insert(n: int, conn: sqlite3.Connection) -> None:
    conn.execute("INSERT INTO t VALUES (?)", (n,))


def rows(db: Path) -> list[int]:
    return [n for (n,) in sqlite3.connect(db).execute("SELECT n FROM t ORDER BY rowid")]


def test_writes_commit_in_submission_order_and_flush_waits(writer: BatchWriter, db: Path) -> None:
    for n in range(500):
        writer.submit(partial(insert, n))

    assert writer.flush(5)
    assert rows(db) == list(range(500))


def test_callbacks_run_after_commit_in_order(writer: BatchWriter, db: Path) -> None:
    seen: list[tuple[int, bool]] = []
    for n in range(20):
        writer.submit(partial(insert, n), partial(lambda n: seen.append((n, n in rows(db))), n))

    writer.flush(5)

    assert seen == [(n, True) for n in range(20)]


def test_a_failing_write_is_dropped_alone(writer: BatchWriter, db: Path) -> None:
    called: list[int] = []
    gate = threading.Event()
    writer.submit(lambda _: gate.wait(5))  # hold the writer so the next three share a batch
    for n in (1, 1, 2):  # the second 1 breaks the UNIQUE constraint
        writer.submit(partial(insert, n), partial(called.append, n))
    gate.set()

    writer.flush(5)

    assert rows(db) == [1, 2]
    assert called == [1, 1, 2], "callbacks run even for a dropped write"


def test_chores_run_every_interval(db: Path) -> None:
    runs: list[float] = []
    chore = Chore(0.05, lambda _: runs.append(time.monotonic()))
    writer = BatchWriter(
        sqlite3.connect(db, isolation_level=None, check_same_thread=False), chores=(chore,)
    )
    writer.start()
    time.sleep(0.4)
    writer.close()

    assert 3 <= len(runs) <= 10


def test_close_commits_what_is_queued(db: Path) -> None:
    writer = BatchWriter(sqlite3.connect(db, isolation_level=None, check_same_thread=False))
    writer.start()
    for n in range(100):
        writer.submit(partial(insert, n))

    writer.close()

    assert not writer.alive
    assert rows(db) == list(range(100))


def test_a_lazy_write_alone_waits_for_company_then_commits(writer: BatchWriter, db: Path) -> None:
    ran_at: list[float] = []

    def timed_insert(conn: sqlite3.Connection) -> None:
        ran_at.append(time.monotonic())
        insert(1, conn)

    submitted = time.monotonic()
    writer.submit(timed_insert, urgent=False)

    deadline = time.monotonic() + 5
    while not rows(db) and time.monotonic() < deadline:
        time.sleep(0.01)

    assert rows(db) == [1]
    assert ran_at[0] - submitted >= writer_module._LAZY_SECONDS * 0.9  # not woken for it


def test_a_lazy_write_commits_with_the_next_urgent_one_in_order(
    writer: BatchWriter, db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writer_module, "_LAZY_SECONDS", 60.0)
    seen: list[list[int]] = []
    done = threading.Event()

    def look() -> None:
        seen.append(rows(db))
        done.set()

    writer.submit(partial(insert, 1), urgent=False)
    writer.submit(partial(insert, 2), look)

    assert done.wait(5)
    assert seen == [[1, 2]]


def test_flush_commits_lazy_writes_at_once(
    writer: BatchWriter, db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writer_module, "_LAZY_SECONDS", 60.0)
    writer.submit(partial(insert, 1), urgent=False)

    assert writer.flush(5)
    assert rows(db) == [1]


def _committed_on(callers: list[str]) -> partial[None]:
    return partial(lambda seen: seen.append(threading.current_thread().name), callers)


def test_a_caller_with_nothing_else_to_do_commits_its_own_urgent_writes(
    writer: BatchWriter, db: Path
) -> None:
    committed_on: list[str] = []
    with writer.caller_commits(lambda: False):
        writer.submit(partial(insert, 1), _committed_on(committed_on))
        writer.submit(partial(insert, 2), urgent=False)  # joins the caller's batch
    # Committed before caller_commits returned, on this thread: no wait, no wake.
    assert rows(db) == [1, 2]
    assert committed_on == [threading.current_thread().name]


def test_a_caller_with_more_work_leaves_the_commit_to_the_writer(
    writer: BatchWriter, db: Path
) -> None:
    committed_on: list[str] = []
    with writer.caller_commits(lambda: True):
        writer.submit(partial(insert, 1), _committed_on(committed_on))
    assert writer.flush(5)
    assert rows(db) == [1]
    assert committed_on == ["state-writer"]


def test_a_caller_never_commits_beside_a_commit_under_way(writer: BatchWriter, db: Path) -> None:
    """The writer holds the connection: the caller's write waits its turn, in order."""
    inside, release = threading.Event(), threading.Event()

    def slow_insert(n: int, conn: sqlite3.Connection) -> None:
        inside.set()
        assert release.wait(5)
        insert(n, conn)

    committed_on: list[str] = []
    writer.submit(partial(slow_insert, 1))
    assert inside.wait(5)
    with writer.caller_commits(lambda: False):
        writer.submit(partial(insert, 2), _committed_on(committed_on))
    assert rows(db) == []  # the caller did not commit: the writer's batch is still open
    release.set()
    assert writer.flush(5)
    assert rows(db) == [1, 2]
    assert committed_on == ["state-writer"]
