from __future__ import annotations

import logging
import os
import sqlite3
from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from notifier.objects import Kind, ObjectKey
from notifier.state import StateUnavailableError
from notifier.state.database import WAL_LIMIT_BYTES, open_database
from notifier.state.schema import SCHEMA_VERSION
from tests.unit.sinks.factories import notification
from tests.unit.state.helpers import open_store


def fresh_starts(reason: str) -> float:
    value = REGISTRY.get_sample_value("kube_notifier_state_fresh_starts_total", {"reason": reason})
    return value or 0.0


def assert_usable(path: Path) -> None:
    store = open_store(path)
    store.outbox.add(notification())
    store.flush()
    assert store.outbox.count_pending("hook") == 1
    store.close()


def test_a_missing_database_is_created_with_a_log_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "new" / "dir" / "state.db"

    with caplog.at_level(logging.INFO, logger="notifier.state"):
        assert_usable(path)

    assert f"no state database at {path}" in caplog.text
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_a_corrupt_file_is_moved_aside_and_a_fresh_one_used(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "state.db"
    path.write_bytes(b"this is not a database" * 500)
    before = fresh_starts("corrupt")

    with caplog.at_level(logging.ERROR, logger="notifier.state"):
        assert_usable(path)

    (aside,) = tmp_path.glob("state.db.corrupt-*")
    assert aside.read_bytes().startswith(b"this is not a database")
    assert "is corrupt" in caplog.text and str(aside) in caplog.text
    assert fresh_starts("corrupt") == before + 1


def test_a_database_locked_by_another_process_gives_a_fresh_start(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "state.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")

    with caplog.at_level(logging.ERROR, logger="notifier.state"):
        assert_usable_with_short_lock_timeout(path)

    holder.close()
    assert list(tmp_path.glob("state.db.locked-*"))
    assert "is locked" in caplog.text


def assert_usable_with_short_lock_timeout(path: Path) -> None:
    store = open_store(path, lock_timeout_seconds=0.2)
    store.outbox.add(notification())
    store.flush()
    assert store.outbox.count_pending("hook") == 1
    store.close()


def test_a_database_from_a_newer_release_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 99")

    assert_usable(path)

    assert list(tmp_path.glob("state.db.incompatible-*"))


def test_a_path_inside_a_file_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")

    with pytest.raises(StateUnavailableError, match="cannot create the state directory"):
        open_store(blocker / "state.db")


def test_a_directory_as_the_path_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StateUnavailableError, match="is a directory"):
        open_store(tmp_path)


def test_a_place_where_no_file_can_be_created_is_a_clear_error() -> None:
    # /proc exists but takes no new files, even from root (chmod would not stop root).
    with pytest.raises(StateUnavailableError, match="cannot use the state database at /proc"):
        open_store(Path("/proc/kube-notifier-state.db"))


def test_a_version_1_database_is_migrated_keeping_what_was_seen(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            """
            CREATE TABLE seen (kind TEXT NOT NULL, key TEXT NOT NULL, uid TEXT NOT NULL,
                resource_version TEXT NOT NULL, object BLOB NOT NULL,
                PRIMARY KEY (kind, key)) WITHOUT ROWID;
            INSERT INTO seen VALUES ('Pod', 'default/web-1', 'u-1', '42', x'7b7d');
            PRAGMA user_version = 1;
            """
        )

    store = open_store(path)
    record = store.seen.last_seen(Kind.POD, ObjectKey("default/web-1"))
    store.close()

    assert record is not None and (record.uid, record.resource_version) == ("u-1", "42")
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        ddl = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'seen'").fetchone()[0]
    assert "WITHOUT ROWID" not in ddl
    assert_usable(path)


def test_a_second_process_on_the_same_file_is_refused_until_the_first_closes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "state.db"
    first = open_store(path)
    with pytest.raises(StateUnavailableError, match=rf"in use by another .* \(pid {os.getpid()}\)"):
        open_store(path)
    first.close()
    open_store(path).close()


def test_a_state_file_deleted_while_in_use_fails_health(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    store = open_store(path)
    assert store.healthy
    path.unlink()
    assert not store.healthy
    store.close()


def test_a_wal_a_burst_grew_is_cut_back_once_checkpointed(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    connections = open_database(path)
    writer = connections.writer
    writer.execute("CREATE TABLE burst (body BLOB)")
    writer.execute("BEGIN")
    writer.executemany("INSERT INTO burst VALUES (?)", [(os.urandom(1500),) for _ in range(8000)])
    writer.execute("COMMIT")
    wal = Path(f"{path}-wal")
    assert wal.stat().st_size > 2 * WAL_LIMIT_BYTES  # the burst, in the WAL
    writer.execute("PRAGMA wal_checkpoint(PASSIVE)")
    writer.execute("INSERT INTO burst VALUES (x'00')")  # the next write resets the WAL
    assert wal.stat().st_size <= WAL_LIMIT_BYTES
    for connection in (connections.writer, connections.reader):
        connection.close()
    os.close(connections.lock)
