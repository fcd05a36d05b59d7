"""``StateStore``: the durable state of one kube-notifier process, in one SQLite file.

It holds the outbox, the dead letters and what their replays did, Slack thread roots, the last
object state acted on per key and the group members waiting for their
digest, the rules' ``for:`` timers and the stays they remember, the ends of
owners' incidents kept for their last object, all written by one ``BatchWriter`` thread
(group commits, submission order) and read through one read connection.
Old dead letters and replays, thread roots and abandoned outbox rows are pruned by the
writer every ``prune_interval_seconds``. See ``database`` for what happens
when the file is missing, corrupt, locked or unusable.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from notifier.state.alerts import OpenAlerts
from notifier.state.config import StateConfig
from notifier.state.database import open_database
from notifier.state.dead_letters import DeadLetters, prune_dead_letters
from notifier.state.firing import FiringRows
from notifier.state.folded_ends import FoldedEndRows
from notifier.state.held import HeldMembers
from notifier.state.outbox import Outbox, expire_outbox
from notifier.state.reader import Reader
from notifier.state.replays import Replays, prune_replays
from notifier.state.seen import SeenObjects
from notifier.state.stays import StayRows, prune_stays
from notifier.state.thread_roots import SlackThreads, prune_threads
from notifier.state.timers import TimerRows
from notifier.state.writer import BatchWriter, Chore

_HOUR = 3600.0
log = logging.getLogger(__name__)


class StateStore:
    def __init__(self, config: StateConfig, *, clock: Callable[[], float] = time.time) -> None:
        """Open (or create) the database at ``config.path`` and start the writer thread.

        Raises ``StateUnavailableError`` when the path cannot be used at all.
        """
        connections = open_database(config.path, lock_timeout=config.lock_timeout_seconds)
        self._path, self._lock = config.path, connections.lock
        self._inode = os.stat(config.path).st_ino
        self._said_missing = False
        self._prune = partial(_prune, config, clock)
        chores = (Chore(config.prune_interval_seconds, self._prune),)
        self._writer = BatchWriter(connections.writer, chores=chores)
        self._reader = Reader(connections.reader)
        self.outbox = Outbox(self._writer, self._reader, clock=clock)
        self.dead_letters = DeadLetters(self._reader)
        self.replays = Replays(self._reader)
        self.threads = SlackThreads(self._writer, self._reader, clock=clock)
        self.seen = SeenObjects(self._writer, self._reader)
        self.held = HeldMembers(self._writer, self._reader)
        self.firing = FiringRows(self._writer, self._reader)
        self.alerts = OpenAlerts(self._writer, self._reader, clock=clock)
        self.timers = TimerRows(self._writer, self._reader)
        self.stays = StayRows(self._writer, self._reader)
        self.folded_ends = FoldedEndRows(self._writer, self._reader)
        self._writer.start()

    @property
    def writer(self) -> BatchWriter:
        """For threads that commit their own urgent writes (``BatchWriter.caller_commits``)."""
        return self._writer

    @property
    def path(self) -> Path:
        return self._path

    @property
    def healthy(self) -> bool:
        """False once the writer thread is gone (closed or crashed) or the file is gone."""
        return self._writer.alive and self._file_present()

    def _file_present(self) -> bool:
        try:
            present = os.stat(self._path).st_ino == self._inode
        except OSError:
            present = False
        if not present and not self._said_missing:
            self._said_missing = True
            log.error(
                "state database %s was deleted or replaced while in use: nothing written now"
                " survives a restart; /healthz fails so that the pod restarts with a new one",
                self._path,
            )
        return present

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every write submitted so far is committed; False on timeout."""
        return self._writer.flush(timeout)

    def prune(self) -> None:
        """Prune now (the writer also does it every ``prune_interval_seconds``)."""
        self._writer.submit(self._prune)

    def close(self, timeout: float = 5.0) -> None:
        """Commit what is queued (within ``timeout``) and close the database."""
        self._writer.close(timeout)
        self._reader.close()
        if self._lock >= 0:
            os.close(self._lock)  # releases the exclusive lock
            self._lock = -1


def _prune(config: StateConfig, clock: Callable[[], float], conn: sqlite3.Connection) -> None:
    now = clock()
    prune_dead_letters(conn, older_than=now - config.dead_letter_retention_hours * _HOUR)
    prune_replays(conn, older_than=now - config.dead_letter_retention_hours * _HOUR)
    prune_threads(conn, older_than=now - config.thread_retention_hours * _HOUR)
    expire_outbox(conn, older_than=now - config.outbox_retention_hours * _HOUR, now=now)
    prune_stays(conn, ended_before=now)
