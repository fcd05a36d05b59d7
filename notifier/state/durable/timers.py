"""The rules' ``for:`` timers kept in the state database (``rules/timing.py``)."""

from __future__ import annotations

import json
import logging

import msgspec

from notifier.kinds.registry import KINDS, Kinds
from notifier.rules.timing import Timer
from notifier.state.durable.holding import decode_transition, encode_transition
from notifier.state.timers import TimerRow, TimerRows

log = logging.getLogger("notifier.service")


class DurableTimers:
    def __init__(self, rows: TimerRows, kinds: Kinds = KINDS) -> None:
        self._rows = rows
        self._kinds = kinds

    def all_timers(self) -> list[Timer]:
        found = []
        for row in self._rows.all_rows():
            try:
                wanted = frozenset(str(name) for name in json.loads(row.wanted))
                transition = decode_transition(row.encoded, self._kinds)
            except (ValueError, TypeError, msgspec.DecodeError) as err:
                log.warning("a timer of rule %r is unreadable (%s): dropped", row.rule, err)
                self._rows.delete(row.rule, row.step, row.kind, row.key)
                continue
            found.append(
                Timer(row.rule, transition, wanted, row.since, row.fired, row.step, row.told)
            )
        return found

    def save(self, timer: Timer) -> None:
        kind, key = timer.object_id
        wanted = json.dumps(sorted(timer.wanted))
        encoded = encode_transition(timer.transition)
        step, fired, told = timer.step, timer.fired, timer.told
        row = TimerRow(timer.rule, step, kind.value, key, timer.since, fired, told, wanted, encoded)
        self._rows.upsert(row)

    def drop(self, timer: Timer) -> None:
        kind, key = timer.object_id
        self._rows.delete(timer.rule, timer.step, kind.value, key)
