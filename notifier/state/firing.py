"""The rules' open incidents (``rules/incidents/resolving.py``), kept so a restart neither forgets
one nor tells it again.

One row per rule and object: the states it told (JSON text), its start, its worst
state, since when its object is out of trouble (NULL: in trouble), its recovery
window, the sinks its escalation reached (JSON text) and the transition to tell
its end from (opaque bytes: encoding it is the caller's). Written by the one
writer thread (an ended incident's row goes after the transition that ended it).

``FiringRows`` is the table; ``DurableFirings`` is the rules' incidents over it,
transitions as msgspec JSON (``encoded_transitions.py``).
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
from notifier.rules.incidents.resolving import Firing
from notifier.state.encoded_transitions import decode_transition, encode_transition
from notifier.state.reader import Reader
from notifier.state.writer import BatchWriter

_COLUMNS = (
    "rule, kind, key, states, fired_at, worst, recovering_since, recovery, escalated, transition"
)


class FiringRow(NamedTuple):
    rule: str
    kind: str
    key: str
    states: str  # a JSON list of state names
    fired_at: float
    worst: str = ""
    recovering_since: float | None = None
    recovery: float = 0.0
    escalated: str = "[]"  # a JSON list of sink names
    encoded: bytes | None = None  # the transition; None in a row an older release wrote


class FiringRows:
    def __init__(self, writer: BatchWriter, reader: Reader) -> None:
        self._writer = writer
        self._reader = reader

    def all_rows(self) -> list[FiringRow]:
        rows = self._reader.rows(f"SELECT {_COLUMNS} FROM firing")
        return [FiringRow(*row) for row in rows]

    def upsert(self, row: FiringRow) -> None:
        self._writer.submit(partial(_upsert, tuple(row)))

    def delete(self, rule: str, kind: str, key: str) -> None:
        self._writer.submit(partial(_delete, (rule, kind, key)))


def _upsert(row: tuple[object, ...], conn: sqlite3.Connection) -> None:
    conn.execute(
        f"INSERT OR REPLACE INTO firing ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row
    )


def _delete(where: tuple[str, str, str], conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM firing WHERE rule = ? AND kind = ? AND key = ?", where)


log = logging.getLogger("notifier.service")


class DurableFirings:
    def __init__(self, rows: FiringRows, kinds: Kinds) -> None:
        self._rows = rows
        self._kinds = kinds

    def all_firing(self) -> list[Firing]:
        found = []
        for row in self._rows.all_rows():
            try:
                found.append(self._firing(row))
            except (ValueError, TypeError, msgspec.DecodeError) as err:
                log.warning("an incident of rule %r is unreadable (%s): dropped", row.rule, err)
                self._rows.delete(row.rule, row.kind, row.key)
        return found

    def fire(self, firing: Firing) -> None:
        transition = firing.transition
        self._rows.upsert(
            FiringRow(
                firing.rule,
                firing.kind.value,
                firing.key,
                json.dumps(sorted(firing.states)),
                firing.fired_at,
                firing.worst,
                firing.recovering_since,
                firing.recovery,
                json.dumps(list(firing.escalated)),
                None if transition is None else encode_transition(transition),
            )
        )

    def resolve(self, firing: Firing) -> None:
        self._rows.delete(firing.rule, firing.kind.value, firing.key)

    def _firing(self, row: FiringRow) -> Firing:
        states = frozenset(str(name) for name in json.loads(row.states))
        escalated = tuple(str(sink) for sink in json.loads(row.escalated))
        encoded = row.encoded
        transition = None if encoded is None else decode_transition(encoded, kinds=self._kinds)
        return Firing(
            row.rule,
            Kind(row.kind),
            ObjectKey(row.key),
            states,
            row.fired_at,
            worst=row.worst or min(states, default=""),
            recovering_since=row.recovering_since,
            recovery=row.recovery,
            transition=transition,
            escalated=escalated,
        )
