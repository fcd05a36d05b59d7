"""``Envelope``: a notification on its way through one sink's queue."""

from __future__ import annotations

from dataclasses import dataclass

from notifier.notifications import Notification


@dataclass(slots=True, eq=False)
class Envelope:
    """``seq`` orders envelopes (the outbox row, when there is an outbox).

    ``attempts`` is changed only by the worker holding the envelope's key.
    """

    seq: int
    notification: Notification
    attempts: int = 0
    # What is sent: the notification with its context attached, fetched once, kept for retries.
    sending: Notification | None = None

    @property
    def key(self) -> str:
        return self.notification.ordering_key
