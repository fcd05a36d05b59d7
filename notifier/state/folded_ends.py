"""The ends of a ``fold_into: owner`` incident told with its last object's
(``rules/incidents/folding.py``), kept so a restart neither tells the owner's end early nor
forgets the objects and states before it.

One row per rule and owner: the ends merged so far (the states as JSON text, the
worst, the first telling, the sinks escalations reached, the objects as JSON
pairs) and the transition to tell from (opaque bytes: encoding it is the
caller's). Written by the one writer thread after the ``firing`` row it came
from is deleted; deleted when the owner's end is told. The rules drop, at
start, a row whose owner has no incident open any more, so the table holds no
more rows than the owners with an incident open.

``FoldedEndRows`` is the table; ``DurableFoldedEnds`` is the rules' store over it.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from functools import partial
from typing import NamedTuple

import msgspec

from notifier.kinds.registry import Kinds
from notifier.objects import Kind, ObjectKey
from notifier.rules.incidents.folding import EndKey, FoldedEnd
from notifier.rules.incidents.resolving import Firing
from notifier.state.encoded_transitions import decode_transition, encode_transition
from notifier.state.reader import Reader
from notifier.state.writer import BatchWriter

_COLUMNS = (
    "rule, namespace, owner_kind, owner_name, kind, key, states, fired_at, worst, recovery,"
    " escalated, objects, transition"
)
log = logging.getLogger("notifier.service")


class FoldedEndRow(NamedTuple):
    rule: str
    namespace: str
    owner_kind: str
    owner_name: str
    kind: str  # the object whose end was last merged in
    key: str
    states: str  # a JSON list of state names
    fired_at: float
    worst: str
    recovery: float
    escalated: str  # a JSON list of sink names
    objects: str  # a JSON list of [kind, name]
    encoded: bytes | None  # the transition


class FoldedEndRows:
    def __init__(self, writer: BatchWriter, reader: Reader) -> None:
        self._writer = writer
        self._reader = reader

    def all_rows(self) -> list[FoldedEndRow]:
        return [
            FoldedEndRow(*row) for row in self._reader.rows(f"SELECT {_COLUMNS} FROM folded_ends")
        ]

    def upsert(self, row: FoldedEndRow) -> None:
        self._writer.submit(partial(_upsert, tuple(row)))

    def delete(self, rule: str, owner: tuple[str, str, str]) -> None:
        self._writer.submit(partial(_delete, (rule, *owner)))


def _upsert(row: tuple[object, ...], conn: sqlite3.Connection) -> None:
    marks = ", ".join("?" * len(row))
    conn.execute(f"INSERT OR REPLACE INTO folded_ends ({_COLUMNS}) VALUES ({marks})", row)


def _delete(where: tuple[str, str, str, str], conn: sqlite3.Connection) -> None:
    conn.execute(
        "DELETE FROM folded_ends"
        " WHERE rule = ? AND namespace = ? AND owner_kind = ? AND owner_name = ?",
        where,
    )


class DurableFoldedEnds:
    def __init__(self, rows: FoldedEndRows, kinds: Kinds) -> None:
        self._rows = rows
        self._kinds = kinds

    def all_ended(self) -> list[tuple[EndKey, FoldedEnd]]:
        found = []
        for row in self._rows.all_rows():
            owner = (row.namespace, row.owner_kind, row.owner_name)
            try:
                found.append(((row.rule, owner), self._end(row)))
            except (ValueError, TypeError, msgspec.DecodeError) as err:
                log.warning("an owner's end of rule %r is unreadable (%s): dropped", row.rule, err)
                self._rows.delete(row.rule, owner)
        return found

    def keep(self, key: EndKey, end: FoldedEnd) -> None:
        (rule, (namespace, owner_kind, owner_name)), firing = key, end.firing
        transition = firing.transition
        self._rows.upsert(
            FoldedEndRow(
                rule, namespace, owner_kind, owner_name, firing.kind.value, firing.key,
                json.dumps(sorted(firing.states)), firing.fired_at, firing.worst,
                firing.recovery, json.dumps(list(firing.escalated)),
                json.dumps([list(pair) for pair in end.objects]),
                None if transition is None else encode_transition(transition),
            )
        )  # fmt: skip

    def drop(self, key: EndKey) -> None:
        rule, owner = key
        self._rows.delete(rule, owner)

    def _end(self, row: FoldedEndRow) -> FoldedEnd:
        encoded = row.encoded
        firing = Firing(
            row.rule,
            Kind(row.kind),
            ObjectKey(row.key),
            frozenset(str(name) for name in json.loads(row.states)),
            row.fired_at,
            worst=row.worst,
            recovery=row.recovery,
            transition=None if encoded is None else decode_transition(encoded, kinds=self._kinds),
            escalated=tuple(str(sink) for sink in json.loads(row.escalated)),
        )
        objects = tuple((str(kind), str(name)) for kind, name in json.loads(row.objects))
        return FoldedEnd(firing, objects)
