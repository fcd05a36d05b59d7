"""The rules' incidents kept in the state database (``rules/resolving.py``)."""

from __future__ import annotations

import json
import logging

import msgspec

from notifier.kinds.registry import Kinds
from notifier.objects import Kind, ObjectKey
from notifier.rules.resolving import Firing
from notifier.state.durable.holding import decode_transition, encode_transition
from notifier.state.firing import FiringRow, FiringRows

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
        transition = None if encoded is None else decode_transition(encoded, self._kinds)
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
