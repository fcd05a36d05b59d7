"""The last N decisions, for the operator asking "why did (or didn't) this arrive?".

Each record says what transition was seen, which rules matched, muted or
dropped it, what noise control suppressed (dedup, grouping, startup) and
which notifications went to delivery (rule and sink). Served at /debug/decisions when
enabled (off by default: object names are in it).
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any

from notifier.rules.decisions import Decision
from notifier.transitions.model import Transition


class DecisionLog:
    def __init__(self, size: int = 500) -> None:
        self._records: deque[dict[str, Any]] = deque(maxlen=size)
        self._lock = threading.Lock()

    def record(self, transition: Transition, decision: Decision) -> None:
        entry = {
            "observed_at": transition.observed_at,
            "correlation_id": transition.correlation_id,
            "object": f"{transition.kind.value}/{transition.key}",
            "event": transition.event.value,
            "origin": transition.origin.value,
            "entered": sorted(transition.entered),
            "signals": sorted(transition.signals),
            "changes": [f"{c.path}: {c.old} -> {c.new}" for c in transition.changes[:20]],
            "matched": list(decision.matched),
            "muted": list(decision.muted),
            "dropped_by": decision.dropped_by,
            "suppressed": [{"rule": rule, "reason": why} for rule, why in decision.suppressed],
            "notifications": [
                {"id": n.id, "rule": n.rule, "sink": n.sink} for n in decision.notifications
            ],
        }
        with self._lock:
            self._records.append(entry)

    def recent(self, limit: int = 100) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._records)[-limit:][::-1]
