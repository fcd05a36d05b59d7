"""``SendLedger``: where each recent notification is with its sink, as delivery knows it.

Written by delivery as it goes (handed over: queued; an attempt failed and
will be retried: retrying, with the error; sent: delivered; given up on:
dead-lettered, with why), read by the page, which says per sink what
"told" really came to. Bounded (``KEPT`` notifications, the oldest handed
over forgotten first); memory of this process only. Thread-safe.

A dead letter may be replayed later, by another process on the same state
file: ``after_replay`` turns its record into what that replay left (delivered
by it, or dead-lettered still and the replay's failure), from the state file's
``Replayed`` (``state/replays.py``).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace

from notifier.state.replays import Replayed

KEPT = 20_000
DETAIL_CHARS = 300

QUEUED, RETRYING, DELIVERED, DEAD_LETTERED = "queued", "retrying", "delivered", "dead-lettered"


@dataclass(frozen=True, slots=True)
class SendRecord:
    state: str  # QUEUED, RETRYING, DELIVERED or DEAD_LETTERED
    at: float  # wall clock, when it got there
    attempts: int = 0
    detail: str = ""  # retrying: the last error; dead-lettered: why it was given up on
    cause: str = ""  # enrich: [changes]'s likely cause, once enrichment attached it
    replayed_at: float = 0.0  # when its dead letter was last replayed (0: never)
    replay_error: str = ""  # why that replay failed ("" when it delivered)


def after_replay(record: SendRecord, replayed: Replayed | None) -> SendRecord:
    """A dead-lettered record as a later replay of its letter left it: delivered (``at`` the
    replay; ``detail`` still why it had been given up on), or dead-lettered with the replay's
    failure. Any other record, or a replay from before it was dead-lettered, is as it was."""
    if record.state != DEAD_LETTERED or replayed is None or replayed.at < record.at:
        return record
    if replayed.delivered:
        return replace(record, state=DELIVERED, at=replayed.at, replayed_at=replayed.at)
    return replace(record, replayed_at=replayed.at, replay_error=replayed.detail)


class SendLedger:
    def __init__(self, kept: int = KEPT, clock: Callable[[], float] = time.time) -> None:
        self._records: OrderedDict[tuple[str, str], SendRecord] = OrderedDict()
        self._kept, self._clock = kept, clock
        self._lock = threading.Lock()

    def queued(self, notification_id: str, sink: str) -> None:
        with self._lock:
            self._records[(notification_id, sink)] = SendRecord(QUEUED, self._clock())
            while len(self._records) > self._kept:
                self._records.popitem(last=False)

    def retrying(
        self, notification_id: str, sink: str, attempts: int, error: str, cause: str = ""
    ) -> None:
        self._note(notification_id, sink, SendRecord(RETRYING, self._clock(), attempts,
                                                     error[:DETAIL_CHARS], cause))  # fmt: skip

    def delivered(self, notification_id: str, sink: str, attempts: int, cause: str = "") -> None:
        self._note(notification_id, sink, SendRecord(DELIVERED, self._clock(), attempts,
                                                     cause=cause))  # fmt: skip

    def dead_lettered(
        self, notification_id: str, sink: str, attempts: int, why: str, cause: str = ""
    ) -> None:
        self._note(notification_id, sink, SendRecord(DEAD_LETTERED, self._clock(), attempts,
                                                     why[:DETAIL_CHARS], cause))  # fmt: skip

    def record(self, notification_id: str, sink: str) -> SendRecord | None:
        """Its latest record; None when it was never handed over here, or is forgotten."""
        with self._lock:
            return self._records.get((notification_id, sink))

    def _note(self, notification_id: str, sink: str, record: SendRecord) -> None:
        with self._lock:
            key = (notification_id, sink)
            if key in self._records:  # forgotten meanwhile: stays forgotten
                self._records[key] = record
