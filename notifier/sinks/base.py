"""The one small interface every sink implements.

A sink sends one notification and, when it cannot, raises ``SendError``
saying whether trying again could help. Sinks never retry or sleep
themselves: the delivery stage owns backoff, pacing and dead letters.
"""

from __future__ import annotations

from typing import Protocol

from notifier.notifications import Notification


class SendError(Exception):
    """A failed send. ``reason`` is a short, bounded label (``http_500``,
    ``timeout``, ``channel_not_found``) used in logs and metrics."""

    def __init__(
        self, reason: str, *, retryable: bool, retry_after: float | None = None, detail: str = ""
    ) -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.retryable = retryable
        self.retry_after = retry_after
        self.detail = detail


class Sink(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def integration(self) -> str:
        """``slack``, ``webhook`` or ``console``: the bounded metrics label."""
        ...

    def send(self, notification: Notification) -> None:
        """Deliver or raise ``SendError``. Must return within its configured timeouts."""
        ...

    def close(self) -> None: ...
