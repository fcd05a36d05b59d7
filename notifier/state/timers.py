"""Rules' ``for:`` timers, kept so a restart neither resets, loses nor doubles them.

One row per rule and object: when the state was entered, whether it fired,
the rule's states it waits on (JSON text), the transition to tell (opaque
bytes: encoding it is the caller's) and, for ``for:``, how long a blip out of
the states may last (``rules/timing/stays.py``). Written by the one writer thread as lazy
writes: each commits no later than the worker's record of the object it
came from, and a fired mark no later than what the firing put in the outbox.

``TimerRows`` is the table; ``DurableTimers`` is the rules' timers over it
(``rules/timing/timers.py``), transitions as msgspec JSON (``encoded_transitions.py``).
"""

from __future__ import annotations

import json
import logging
import sqlite3
from functools import partial
from typing import NamedTuple

import msgspec

from notifier.kinds.registry import Kinds
from notifier.rules.timing.timers import Timer
from notifier.state.encoded_transitions import decode_transition, encode_transition
from notifier.state.reader import Reader
from notifier.state.writer import BatchWriter


class TimerRow(NamedTuple):
    rule: str
    step: int  # 0: ``for:``; 1, 2, ...: escalation steps; -1: reminders
    kind: str
    key: str
    since: float
    fired: bool
    told: int
    wanted: str  # a JSON list of state names
    encoded: bytes
    grace: float = 0.0  # ``for:``: how long a blip may last (the rule's recovery window)


class TimerRows:
    def __init__(self, writer: BatchWriter, reader: Reader) -> None:
        self._writer = writer
        self._reader = reader

    def all_rows(self) -> list[TimerRow]:
        rows = self._reader.rows(
            "SELECT rule, step, kind, key, since, fired, told, wanted, transition, grace"
            " FROM timers"
        )
        return [
            TimerRow(rule, step, kind, key, since, bool(fired), told, wanted, encoded, grace)
            for rule, step, kind, key, since, fired, told, wanted, encoded, grace in rows
        ]

    def upsert(self, row: TimerRow) -> None:
        self._writer.submit(partial(_upsert, tuple(row)), urgent=False)

    def delete(self, rule: str, step: int, kind: str, key: str) -> None:
        self._writer.submit(partial(_delete, (rule, step, kind, key)), urgent=False)


def _upsert(row: tuple[object, ...], conn: sqlite3.Connection) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO timers"
        " (rule, step, kind, key, since, fired, told, wanted, transition, grace)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        row,
    )


def _delete(where: tuple[str, int, str, str], conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM timers WHERE rule = ? AND step = ? AND kind = ? AND key = ?", where)


log = logging.getLogger("notifier.service")


class DurableTimers:
    def __init__(self, rows: TimerRows, *, kinds: Kinds) -> None:
        self._rows = rows
        self._kinds = kinds

    def all_timers(self) -> list[Timer]:
        found = []
        for row in self._rows.all_rows():
            try:
                wanted = frozenset(str(name) for name in json.loads(row.wanted))
                transition = decode_transition(row.encoded, kinds=self._kinds)
            except (ValueError, TypeError, msgspec.DecodeError) as err:
                log.warning("a timer of rule %r is unreadable (%s): dropped", row.rule, err)
                self._rows.delete(row.rule, row.step, row.kind, row.key)
                continue
            found.append(
                Timer(row.rule, transition, wanted, row.since, row.fired, row.step, row.told,
                      grace=row.grace)
            )  # fmt: skip
        return found

    def save(self, timer: Timer) -> None:
        kind, key = timer.object_id
        wanted = json.dumps(sorted(timer.wanted))
        encoded = encode_transition(timer.transition)
        step, fired, told = timer.step, timer.fired, timer.told
        row = TimerRow(
            timer.rule, step, kind.value, key, timer.since, fired, told, wanted, encoded,
            timer.grace,
        )  # fmt: skip
        self._rows.upsert(row)

    def drop(self, timer: Timer) -> None:
        kind, key = timer.object_id
        self._rows.delete(timer.rule, timer.step, kind.value, key)
