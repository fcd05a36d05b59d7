"""The email receiver: SMTP with STARTTLS or TLS and auth, text and HTML, a thread per alert.

Its modules are imported one by one: ``config`` with the other sinks' models,
the rest (``building``, ``sink``: smtplib and the email package) only when an
email sink is built (``RECEIVER``'s ``build``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from notifier.sinks.email.config import EmailSinkConfig
from notifier.sinks.receiver_types import ReceiverType

if TYPE_CHECKING:
    from notifier.sinks.alertmanager.open_alerts import AlertStore
    from notifier.sinks.base import Sink
    from notifier.sinks.thread_roots import ThreadStore


def _build(config: EmailSinkConfig, threads: ThreadStore, _alerts: AlertStore) -> Sink:
    from notifier.sinks.email.building import build_email  # noqa: PLC0415 (its sender, when built)

    return build_email(config, threads)


RECEIVER = ReceiverType(EmailSinkConfig, _build, title="email")
