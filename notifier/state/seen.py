"""The last object state the worker acted on, per kind and key, kept across restarts.

After a restart the worker compares these records with the objects it
lists and emits catch-up transitions only for real changes. Objects are
stored as msgspec JSON of ``notifier.objects`` structs (``encode_object`` /
the config's ``Kinds.decode_object``). Reads see this process's own writes at once, even
before they are committed. Records are not pruned by age: a record goes
when the worker forgets it (the object was deleted).

``baseline_at`` tells a first start from a later one: it is set once a start
has acted on its whole initial list. Until then the records are incomplete,
and an object listed with no record is the world as it was, not news. The
same holds per watch scope (a kind in one namespace, or in all): a
``baseline:<Kind>/<namespace or *>`` row says that scope's first list was
acted on, so a kind or namespace added later (by a reload, or to the config
between two starts) starts quiet too. A file written before those rows has
only ``baseline_at``: every scope watched then counts as acted on.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from functools import partial
from typing import NamedTuple

import msgspec

from notifier.objects import Kind, KubeObject, ObjectKey
from notifier.state.pending import PendingWrites
from notifier.state.reader import Reader
from notifier.state.writer import BatchWriter

BATCH = 1000
SCOPE_PREFIX = "baseline:"


class SeenRecord(NamedTuple):
    uid: str
    resource_version: str
    encoded: bytes  # msgspec JSON of the object


_ENCODER = msgspec.json.Encoder()  # one, reused: a quarter cheaper a Pod than ``json.encode``


def encode_object(obj: KubeObject) -> bytes:
    return _ENCODER.encode(obj)


class SeenObjects:
    def __init__(self, writer: BatchWriter, reader: Reader) -> None:
        self._writer = writer
        self._reader = reader
        self._pending: PendingWrites[tuple[str, str], SeenRecord] = PendingWrites()

    def last_seen(self, kind: Kind, key: ObjectKey) -> SeenRecord | None:
        found, record = self._pending.lookup((kind.value, key))
        if found:
            return record
        rows = self._reader.rows(
            "SELECT uid, resource_version, object FROM seen WHERE kind = ? AND key = ?",
            (kind.value, key),
        )
        return SeenRecord(*rows[0]) if rows else None

    def record_seen(
        self, kind: Kind, key: ObjectKey, *, uid: str, resource_version: str, encoded: bytes
    ) -> None:
        self.write_all([(kind, key, SeenRecord(uid, resource_version, encoded))])

    def write_all(self, changes: list[tuple[Kind, ObjectKey, SeenRecord | None]]) -> None:
        """Records, or forgets (None), as one lazy write: committed with the next batch,
        after the notifications submitted before it; read back at once meanwhile."""
        latest: dict[tuple[str, str], SeenRecord | None] = {
            (kind.value, key): record for kind, key, record in changes
        }
        items = list(latest.items())
        token = self._pending.put_all(items)
        settle = partial(self._pending.settle_all, list(latest), token)
        self._writer.submit(partial(_write_rows, items), settle, urgent=False)

    def baseline_at(self) -> float | None:
        """When a start first acted on its whole initial list; None before (a first start)."""
        rows = self._reader.rows("SELECT value FROM meta WHERE name = 'baseline_at'")
        return float(rows[0][0]) if rows else None

    def mark_baseline(self, now: float, scopes: Iterable[str] = ()) -> None:
        """Every object listed so far (in ``scopes``) has a record (queued behind their writes)."""
        self._writer.submit(partial(_set_meta, ("baseline_at", repr(now))))
        for scope in scopes:
            self._writer.submit(partial(_set_meta, (f"{SCOPE_PREFIX}{scope}", repr(now))))

    def baselines(self) -> frozenset[str]:
        """The watch scopes whose first list was acted on (``Pod/*``, ``Job/shop``)."""
        rows = self._reader.rows(
            "SELECT name FROM meta WHERE substr(name, 1, ?) = ?",
            (len(SCOPE_PREFIX), SCOPE_PREFIX),
        )
        return frozenset(str(name)[len(SCOPE_PREFIX) :] for (name,) in rows)

    def forget_baseline(self, scope: str) -> None:
        """The scope is no longer watched: if it is again, its first list is quiet."""
        self._writer.submit(partial(_delete_meta, f"{SCOPE_PREFIX}{scope}"))

    def forget_seen(self, kind: Kind, key: ObjectKey) -> None:
        self.write_all([(kind, key, None)])

    def all_seen(self, kind: Kind) -> dict[ObjectKey, SeenRecord]:
        """Every record of ``kind``: meant for the comparison at start, before workers write."""
        return dict(self.iter_seen(kind))

    def iter_seen(self, kind: Kind) -> Iterator[tuple[ObjectKey, SeenRecord]]:
        """Every record of ``kind``, read ``BATCH`` rows at a time (100k objects are ~400 MB
        of JSON: reading them at once doubled the start's peak)."""
        pending = {
            ObjectKey(key): record
            for (pending_kind, key), record in self._pending.snapshot().items()
            if pending_kind == kind.value
        }
        after = ""
        while True:
            rows = self._reader.rows(
                "SELECT key, uid, resource_version, object FROM seen"
                " WHERE kind = ? AND key > ? ORDER BY key LIMIT ?",
                (kind.value, after, BATCH),
            )
            for key, *rest in rows:
                if ObjectKey(key) not in pending:
                    yield ObjectKey(key), SeenRecord(*rest)
            if len(rows) < BATCH:
                break
            after = rows[-1][0]
        yield from ((key, record) for key, record in pending.items() if record is not None)


def _write_rows(
    items: list[tuple[tuple[str, str], SeenRecord | None]], conn: sqlite3.Connection
) -> None:
    """Each key's record upserted, or its row deleted (None): one statement for each."""
    upserts = [(*where, *record) for where, record in items if record is not None]
    deletes = [where for where, record in items if record is None]
    if upserts:
        conn.executemany(
            "INSERT INTO seen (kind, key, uid, resource_version, object) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (kind, key) DO UPDATE SET uid = excluded.uid,"
            " resource_version = excluded.resource_version, object = excluded.object",
            upserts,
        )
    if deletes:
        conn.executemany("DELETE FROM seen WHERE kind = ? AND key = ?", deletes)


def _set_meta(row: tuple[str, str], conn: sqlite3.Connection) -> None:
    conn.execute("INSERT OR IGNORE INTO meta (name, value) VALUES (?, ?)", row)


def _delete_meta(name: str, conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM meta WHERE name = ?", (name,))
