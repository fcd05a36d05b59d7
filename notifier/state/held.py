"""Group members waiting for their digest, kept until the digest is in the outbox.

Rows are written by the one writer thread, so a member held before the worker
records its object as acted on is committed no later than that record; a
release is forgotten after its digest was submitted to the outbox, so the
digest's row is committed no later than the forgetting. What stays here after
a crash is exactly what was held and never made it to the outbox.
Transitions are stored as opaque bytes: encoding them is the caller's.

``HeldMembers`` is the table; ``DurableHolding`` is the rules' ``Holding`` over it
(``rules/timing/holding.py``), transitions as msgspec JSON (``encoded_transitions.py``).
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence
from functools import partial
from typing import NamedTuple

import msgspec

from notifier.kinds.registry import Kinds
from notifier.rules.timing.holding import Held
from notifier.state.encoded_transitions import decode_transition, encode_transition
from notifier.state.reader import Reader
from notifier.state.writer import BatchWriter

log = logging.getLogger("notifier.service")


class HeldRow(NamedTuple):
    token: int
    rule: str
    encoded: bytes
    held_at: float


class HeldMembers:
    def __init__(self, writer: BatchWriter, reader: Reader) -> None:
        self._writer = writer
        self._reader = reader

    def all_held(self) -> list[HeldRow]:
        """Every row, oldest first: meant for the start, before anything new is held."""
        rows = self._reader.rows("SELECT token, rule, transition, held_at FROM held ORDER BY token")
        return [HeldRow(*row) for row in rows]

    def hold(self, row: HeldRow) -> None:
        self._writer.submit(partial(_insert, tuple(row)))

    def forget(self, tokens: Sequence[int]) -> None:
        self._writer.submit(partial(_delete, list(tokens)))


def _insert(row: tuple[object, ...], conn: sqlite3.Connection) -> None:
    # REPLACE: a token seen again (a restored member held anew) keeps one row.
    conn.execute(
        "INSERT OR REPLACE INTO held (token, rule, transition, held_at) VALUES (?, ?, ?, ?)", row
    )


def _delete(tokens: list[int], conn: sqlite3.Connection) -> None:
    conn.executemany("DELETE FROM held WHERE token = ?", [(token,) for token in tokens])


class DurableHolding:
    def __init__(self, members: HeldMembers, *, kinds: Kinds) -> None:
        self._members = members
        self._kinds = kinds

    def held(self) -> list[Held]:
        restored, unreadable = [], []
        for row in self._members.all_held():
            try:
                restored.append(
                    Held(
                        row.token,
                        row.rule,
                        decode_transition(row.encoded, kinds=self._kinds),
                        row.held_at,
                    )
                )
            except msgspec.DecodeError as err:  # ValidationError is a DecodeError
                log.warning(
                    "held member %d of rule %r is unreadable (%s)", row.token, row.rule, err
                )
                unreadable.append(row.token)
        if unreadable:
            self._members.forget(unreadable)
        return restored

    def hold(self, member: Held) -> None:
        encoded = encode_transition(member.transition)
        self._members.hold(HeldRow(member.token, member.rule, encoded, member.held_at))

    def forget(self, tokens: Sequence[int]) -> None:
        self._members.forget(tokens)
