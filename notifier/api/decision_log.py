"""The last N decisions, for the operator asking "why did (or didn't) this arrive?".

Each record says what transition was seen, which rules matched, muted or
dropped it, what noise control suppressed (dedup, grouping, startup, a
silence, an inhibition) and which notifications went to delivery (rule and
sink). The ring is always kept (``DEFAULT_SIZE`` records, compact: about
450 bytes each, strings shared with the cache; about a microsecond per
transition on the worker, since nothing is formatted until it is read) so the
page's "Why not" view can answer; /debug/decisions serves it as JSON only when enabled
(``--debug-decisions``).
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any, NamedTuple

from notifier.api.paged import Paged
from notifier.kinds.event import Event
from notifier.rules.decisions import Decision
from notifier.transitions.model import Change, Transition

DEFAULT_SIZE = 10_000
_CHANGES_KEPT = 5
_CHANGE_CHARS = 200  # a longer value is cut here and ends with an ellipsis
_ELLIPSIS = "…"


class DecisionRecord(NamedTuple):
    """One decision as kept: cheap to make on a worker (references, nothing formatted)."""

    observed_at: float
    correlation_id: str
    kind: str
    namespace: str
    name: str
    event: str
    origin: str
    entered_states: frozenset[str]
    signal_names: frozenset[str]
    first_changes: tuple[Change, ...]
    change_count: int  # all of them: more than ``first_changes`` holds when some were left out
    message: str  # an Event's reason and message ("" for other kinds), cut as a value is
    matched: tuple[str, ...]
    muted: tuple[str, ...]
    dropped_by: str | None
    suppressed: tuple[tuple[str, str], ...]  # (rule or "", reason)
    told: tuple[tuple[str, str, str], ...]  # (notification id, rule, sink)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name

    @property
    def entered(self) -> list[str]:
        return sorted(self.entered_states)

    @property
    def signals(self) -> list[str]:
        return sorted(self.signal_names)

    @property
    def changes(self) -> list[str]:
        return [f"{c.path}: {c.old} -> {c.new}" for c in self.first_changes]

    @property
    def changes_left_out(self) -> int:
        return self.change_count - len(self.first_changes)

    @classmethod
    def of(cls, transition: Transition, decision: Decision) -> DecisionRecord:
        meta = transition.obj.metadata
        return cls(
            transition.observed_at,
            transition.correlation_id,
            transition.kind,
            meta.namespace,
            meta.name,
            transition.event,
            transition.origin,
            transition.new_states - transition.old_states,
            transition.signals,
            tuple(map(_kept, transition.changes[:_CHANGES_KEPT])),
            len(transition.changes),
            _message(transition.obj),
            decision.matched,
            decision.muted,
            decision.dropped_by,
            tuple(decision.suppressed),
            tuple([(n.id, n.rule, n.sink) for n in decision.notifications]),
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "observed_at": self.observed_at,
            "correlation_id": self.correlation_id,
            "object": f"{self.kind!s}/{self.key}",
            "event": str(self.event),
            "origin": str(self.origin),
            "entered": self.entered,
            "signals": self.signals,
            "changes": self.changes,
            "changes_left_out": self.changes_left_out,
            "message": self.message,
            "matched": list(self.matched),
            "muted": list(self.muted),
            "dropped_by": self.dropped_by,
            "suppressed": [{"rule": rule, "reason": why} for rule, why in self.suppressed],
            "notifications": [{"id": i, "rule": rule, "sink": sink} for i, rule, sink in self.told],
        }


def _kept(change: Change) -> Change:
    """The change as the ring keeps it: a long value cut to what is shown, so the ring never
    holds on to an object's large annotation (10,000 records of 200 KB values would)."""
    old, new = change.old, change.new
    if (old is None or len(old) <= _CHANGE_CHARS) and (new is None or len(new) <= _CHANGE_CHARS):
        return change
    return Change(change.path, _cut(old), _cut(new))


def _cut(value: str | None) -> str | None:
    if value is None or len(value) <= _CHANGE_CHARS:
        return value
    return value[:_CHANGE_CHARS] + _ELLIPSIS


def _message(obj: object) -> str:
    if not isinstance(obj, Event):
        return ""
    said = f"{obj.reason}: {obj.message}" if obj.reason else obj.message
    return _cut(said) or ""


class DecisionLog:
    """A ring of the last ``size`` decisions; recorded by workers, read by HTTP. Thread-safe."""

    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        self._records: deque[DecisionRecord] = deque(maxlen=size)
        self._lock = threading.Lock()

    def record(self, transition: Transition, decision: Decision) -> None:
        entry = DecisionRecord.of(transition, decision)
        with self._lock:
            self._records.append(entry)

    def recent(self, limit: int = 100) -> list[dict[str, Any]]:
        """Newest first, as JSON (/debug/decisions)."""
        return [record.as_json() for record in self.search("", 0, limit).items]

    def search(self, text: str, offset: int, limit: int) -> Paged[DecisionRecord]:
        """Newest first; only those whose kind/namespace/name contains ``text`` (any case)."""
        with self._lock:
            records = list(self._records)
        records.reverse()
        wanted = text.strip().lower()
        if wanted:
            records = [r for r in records if wanted in f"{r.kind}/{r.key}".lower()]
        offset = max(0, offset)
        return Paged(records[offset : offset + max(0, limit)], len(records), offset, limit)
