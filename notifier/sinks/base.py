"""The one small interface every sink implements.

A sink sends one notification and, when it cannot, raises ``SendError``
saying whether trying again could help. Sinks never retry or sleep
themselves: the delivery stage owns backoff, pacing and dead letters.

Each receiver also owns its message: ``preview`` shows the body it would
send (``rules test``), ``capabilities`` what it can do with a resolution,
and a receiver with work of its own (Alertmanager re-sending what is still
firing) is ``Background``: delivery starts it with the sink's runner.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

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
        """The receiver's type (one of ``sinks.registry.RECEIVERS``): the bounded metrics label."""
        ...

    def send(self, notification: Notification) -> None:
        """Deliver or raise ``SendError``. Must return within its configured timeouts."""
        ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a receiver does with a firing and its resolution (docs/receivers.md's table)."""

    resolve: bool = False  # tells the end of what it told, as the service it talks to means it
    threads: bool = False  # a follow-up joins the first message's thread
    update_in_place: bool = False  # the first message itself is changed to show the end


@runtime_checkable
class Receiver(Protocol):
    """A sink that owns its message: it can show the body it would send."""

    @property
    def capabilities(self) -> Capabilities: ...

    def preview(self, notification: Notification) -> str:
        """The body ``send`` would send for ``notification``, as text; nothing is sent."""
        ...


@dataclass(frozen=True, slots=True)
class Verdict:
    """What a credentials check found: ``ok`` True or False, or None when it could not tell
    (the receiver unreachable, or nothing to check without sending)."""

    ok: bool | None
    detail: str = ""


@runtime_checkable
class CredentialChecking(Protocol):
    """A receiver that can check its credentials (and its target) without sending."""

    def check_credentials(self) -> Verdict: ...


@runtime_checkable
class Background(Protocol):
    """A sink with a thread of its own, started with its runner and ended by ``close``."""

    def start(self) -> None: ...
