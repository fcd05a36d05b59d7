"""Opening the state database: WAL mode, schema, and what to do when it is unusable.

``open_database`` returns two connections to one SQLite file: one for the
single writer thread and one for readers (WAL lets them run side by side).

- missing file: created, with an info line.
- corrupt (not a database, failed ``quick_check``), locked by another
  process past ``lock_timeout``, or written by a newer release: the file
  (and its ``-wal``/``-shm``) is renamed to ``<path>.<reason>-<time>``, an
  error line says so, and an empty database takes its place. Notifications
  pending in the old file are not sent; the renamed file keeps them for
  inspection. Never a crash loop.
- path unusable (directory not creatable, read-only, a directory itself):
  ``StateUnavailableError`` with a message meant for an operator; the
  process should print it and exit.
- in use by another kube-notifier process: ``StateUnavailableError``. Two
  processes on one file collided on outbox rows (and one could delete the
  other's), so the first holds an exclusive ``flock`` on ``<path>.lock``
  for as long as it runs. ``kube-notifier dead-letters`` reads and resends
  beside the service without it, by design (its own connection, short
  transactions).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from notifier.state.metrics import FRESH_STARTS
from notifier.state.schema import IncompatibleSchemaError, migrate

log = logging.getLogger(__name__)

# A burst (a first start's saved states: 10,000 rows) grows the WAL file to 15 MiB, and
# SQLite reuses a WAL file without shrinking it: at the next reset after a checkpoint it is
# cut back to this.
WAL_LIMIT_BYTES = 4 * 1024 * 1024
_PATH_PROBLEMS = ("unable to open", "readonly", "read-only", "disk i/o", "permission")


class StateUnavailableError(Exception):
    """The state database path cannot be used at all."""


@dataclass(frozen=True, slots=True)
class Connections:
    writer: sqlite3.Connection
    reader: sqlite3.Connection
    lock: int = -1  # the descriptor holding the exclusive lock; closing it releases it


def open_database(path: Path, *, lock_timeout: float = 5.0) -> Connections:
    _prepare_directory(path)
    lock = _exclusive_lock(path)
    try:
        return Connections(*_opened(path, lock_timeout), lock=lock)
    except BaseException:
        os.close(lock)
        raise


def _opened(path: Path, lock_timeout: float) -> tuple[sqlite3.Connection, sqlite3.Connection]:
    if not path.exists():
        log.info("no state database at %s: starting with an empty one", path)
    try:
        return _connect(path, lock_timeout)
    except sqlite3.DatabaseError as err:
        reason = _problem_of(err)
        if reason == "unusable":
            raise _unavailable(path, err) from None
        _set_aside(path, reason, err)
    try:
        return _connect(path, lock_timeout)
    except sqlite3.DatabaseError as err:
        raise _unavailable(path, err) from None


def _exclusive_lock(path: Path) -> int:
    lock_path = path.with_name(path.name + ".lock")
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as err:
        raise StateUnavailableError(
            f"cannot use the state database at {path}: cannot create {lock_path.name} beside it"
            f" ({err.strerror}); set state.path to a writable location (a mounted volume)"
        ) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
        os.close(fd)
        raise StateUnavailableError(
            f"the state database {path} is in use by another kube-notifier process "
            f"(pid {holder}); each replica needs its own state file"
        ) from None
    with contextlib.suppress(OSError):
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
    return fd


def _prepare_directory(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise StateUnavailableError(
            f"cannot create the state directory {path.parent}: {err.strerror}; "
            "set state.path to a writable location (a mounted volume)"
        ) from None
    if path.is_dir():
        raise StateUnavailableError(f"state.path {path} is a directory, not a database file")


def _connect(path: Path, lock_timeout: float) -> tuple[sqlite3.Connection, sqlite3.Connection]:
    writer = _connection(path, lock_timeout)
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("PRAGMA synchronous=NORMAL")
        writer.execute(f"PRAGMA journal_size_limit={WAL_LIMIT_BYTES}")
        _check_integrity(writer)
        migrate(writer)
        reader = _connection(path, lock_timeout)
    except BaseException:
        writer.close()
        raise
    reader.execute("PRAGMA query_only=ON")
    return writer, reader


def _connection(path: Path, lock_timeout: float) -> sqlite3.Connection:
    # Autocommit mode: the writer opens its own transactions, one per batch.
    return sqlite3.connect(
        path, timeout=lock_timeout, isolation_level=None, check_same_thread=False
    )


def _check_integrity(conn: sqlite3.Connection) -> None:
    (verdict,) = conn.execute("PRAGMA quick_check").fetchone()
    if verdict != "ok":
        raise sqlite3.DatabaseError(f"database disk image is malformed: {verdict}")


def _problem_of(err: sqlite3.DatabaseError) -> str:
    text = str(err).lower()
    if isinstance(err, IncompatibleSchemaError):
        return "incompatible"
    if "locked" in text or "busy" in text:
        return "locked"
    if isinstance(err, sqlite3.OperationalError) and any(p in text for p in _PATH_PROBLEMS):
        return "unusable"
    return "corrupt"


def _set_aside(path: Path, reason: str, err: sqlite3.DatabaseError) -> None:
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    aside = path.with_name(f"{path.name}.{reason}-{stamp}")
    try:
        for suffix in ("", "-wal", "-shm"):
            source = path.with_name(path.name + suffix)
            if source.exists():
                source.rename(aside.with_name(aside.name + suffix))
    except OSError as move_err:
        raise StateUnavailableError(
            f"state database {path} is {reason} ({err}) and cannot be moved aside: "
            f"{move_err.strerror}"
        ) from None
    FRESH_STARTS.labels(reason=reason).inc()
    log.error(
        "state database %s is %s (%s): moved it to %s and starting with an empty one; "
        "notifications still pending in it will not be sent",
        path,
        reason,
        err,
        aside,
    )


def _unavailable(path: Path, err: sqlite3.DatabaseError) -> StateUnavailableError:
    return StateUnavailableError(
        f"cannot use the state database at {path}: {err}; "
        "set state.path to a writable location (a mounted volume)"
    )
