"""The rules' ``Firings`` kept in the state database (``send_resolved`` across restarts)."""

from __future__ import annotations

import json
import logging

from notifier.objects import Kind, ObjectKey
from notifier.rules.resolving import Firing
from notifier.state.firing import FiringRow, FiringRows

log = logging.getLogger("notifier.service")


class DurableFirings:
    def __init__(self, rows: FiringRows) -> None:
        self._rows = rows

    def all_firing(self) -> list[Firing]:
        found = []
        for row in self._rows.all_rows():
            try:
                states = frozenset(str(name) for name in json.loads(row.states))
            except (ValueError, TypeError) as err:
                log.warning("a told state of rule %r is unreadable (%s): dropped", row.rule, err)
                self._rows.delete(row.rule, row.kind, row.key)
                continue
            found.append(Firing(row.rule, Kind(row.kind), ObjectKey(row.key), states, row.fired_at))
        return found

    def fire(self, firing: Firing) -> None:
        states = json.dumps(sorted(firing.states))
        self._rows.upsert(
            FiringRow(firing.rule, firing.kind.value, firing.key, states, firing.fired_at)
        )

    def resolve(self, firing: Firing) -> None:
        self._rows.delete(firing.rule, firing.kind.value, firing.key)
