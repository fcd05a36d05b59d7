"""``SinkAdmission``: admits envelopes into a sink's bounded queue; the rest waits in the outbox.

With an outbox, every notification is already a durable row when it is
offered. If the queue is full, the envelope is simply not queued (counted
in ``spilled_total``); from then on the sink is in spill mode and every
newer envelope stays in the outbox too, so nothing overtakes what waits.
``refill`` (called by the sink's workers) loads rows back in sequence order
once the queue is half empty, and leaves spill mode when the outbox has no
more. A sink starts in spill mode: what a previous process left pending is
loaded first, in order, before anything new.

Without an outbox a full queue has nowhere to put an envelope: it is
dropped and counted (``dropped_total{reason="queue_full"}``).
"""

from __future__ import annotations

import logging
import threading

from notifier.delivery.envelope import Envelope
from notifier.delivery.keyed_queue import KeyedQueue
from notifier.delivery.metrics import DROPPED, SPILLED, SinkLabels
from notifier.state import Outbox

log = logging.getLogger(__name__)


class SinkAdmission:
    def __init__(
        self, queue: KeyedQueue, labels: SinkLabels, *, capacity: int, outbox: Outbox | None
    ) -> None:
        self._queue = queue
        self._labels = labels
        self._capacity = capacity
        self._outbox = outbox
        self._spilled = outbox is not None
        self._high_seq = 0  # the newest seq loaded into the queue (outbox mode)
        self._backlog = 0  # rows known to wait in the outbox only (an estimate)
        self._full = False  # for logging the start and end of an overflow once
        self._lock = threading.Lock()

    @property
    def backlog(self) -> int:
        return self._backlog

    def retarget(self, labels: SinkLabels, *, capacity: int) -> None:
        """A reloaded config's labels (the sink's type may change) and queue size."""
        with self._lock:
            self._labels, self._capacity = labels, capacity

    def start(self) -> None:
        """Load what a previous process left, so that it goes before anything new."""
        if self._outbox is not None:
            self._backlog = self._outbox.count_pending(self._labels.sink)
            self.refill()

    def offer(self, envelope: Envelope) -> None:
        with self._lock:
            if self._outbox is None:
                self._put_or_drop(envelope)
            elif envelope.seq > self._high_seq:  # not loaded from the outbox already
                self._put_or_spill(envelope)

    def refill(self) -> None:
        if not self._spilled or self._outbox is None:
            return
        with self._lock:
            room = self._capacity - len(self._queue)
            if not self._spilled or room < self._capacity / 2:
                return
            page = self._outbox.pending(self._labels.sink, after=self._high_seq, limit=room)
            for seq, notification in page.items:
                self._queue.put(Envelope(seq, notification))
            self._high_seq = max(self._high_seq, page.last_seq)
            self._backlog = max(0, self._backlog - len(page.items))
            if page.exhausted:
                self._leave_spill_mode()

    def _put_or_drop(self, envelope: Envelope) -> None:
        if len(self._queue) < self._capacity:
            self._queue.put(envelope)
            self._note_room()
            return
        DROPPED.labels(*self._labels, "queue_full").inc()
        self._note_full("dropping new notifications (no outbox to keep them)")

    def _put_or_spill(self, envelope: Envelope) -> None:
        full = len(self._queue) >= self._capacity
        if not self._spilled and not full:
            self._queue.put(envelope)
            self._high_seq = envelope.seq
            return
        # Behind a backlog, an envelope waits its turn in the outbox even if there is room.
        self._spilled = True
        self._backlog += 1
        if full:
            SPILLED.labels(*self._labels).inc()
            self._note_full("keeping new notifications in the outbox until there is room")

    def _leave_spill_mode(self) -> None:
        self._spilled = False
        self._backlog = 0
        self._note_room()

    def _note_full(self, consequence: str) -> None:
        if not self._full:
            self._full = True
            log.warning(
                "sink %s: queue full (%d): %s", self._labels.sink, self._capacity, consequence
            )

    def _note_room(self) -> None:
        if self._full:
            self._full = False
            log.info("sink %s: queue has room again", self._labels.sink)
