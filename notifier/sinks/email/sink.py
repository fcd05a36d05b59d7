"""``EmailSink``: one mail per notification over SMTP (STARTTLS, TLS or plain), with auth.

A connection per send (mail is rare next to chat); each SMTP exchange has
``timeout`` and the whole send the deadline (``deadlines``: its socket is shut
down when it passes). The first mail of a fingerprint starts a thread (its
``Message-ID`` kept in the ``ThreadStore``) that every later mail replies in.
Thread-safe: sends of one fingerprint are serialized so one thread is started.
"""

from __future__ import annotations

import email.policy
import smtplib
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import EmailMessage

from notifier.notifications import Notification
from notifier.sinks import deadlines
from notifier.sinks.base import Capabilities
from notifier.sinks.email.failures import failure_for_smtp
from notifier.sinks.email.messages import compose, message_id, shown_mail
from notifier.sinks.rendering import ReceiverTemplate
from notifier.sinks.thread_roots import ThreadStore

_LOCK_STRIPES = 16


@dataclass(frozen=True, slots=True)
class SmtpServer:
    host: str
    port: int
    security: str  # starttls, tls or none
    tls: ssl.SSLContext
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    timeout: float = 10.0
    deadline: float = 30.0


class EmailSink:
    def __init__(
        self,
        name: str,
        server: SmtpServer,
        *,
        sender: str,
        to: list[str],
        template: ReceiverTemplate,
        threads: ThreadStore,
        connect: Callable[[SmtpServer], smtplib.SMTP] | None = None,
    ) -> None:
        self._name = name
        self._server = server
        self._sender = sender
        self._to = to
        self._template = template
        self._threads = threads
        self._scope = f"{name}@email"
        self._domain = sender.rpartition("@")[2]
        self._connect = connect or _connected
        self._stripes = tuple(threading.Lock() for _ in range(_LOCK_STRIPES))

    @property
    def name(self) -> str:
        return self._name

    @property
    def integration(self) -> str:
        return "email"

    @property
    def capabilities(self) -> Capabilities:
        return Capabilities(resolve=True, threads=True, update_in_place=False)

    def preview(self, notification: Notification) -> str:
        return shown_mail(self._mail(notification, None))

    def send(self, notification: Notification) -> None:
        key = notification.fingerprint or notification.id
        with self._stripes[hash(key) % _LOCK_STRIPES]:
            root = self._threads.thread_ts(self._scope, key)
            self._deliver(self._mail(notification, root).as_bytes(policy=email.policy.SMTP))
            if root is None:
                own = message_id(notification.id, self._domain)
                self._threads.remember_thread(self._scope, key, own)

    def close(self) -> None:
        return None

    def _mail(self, notification: Notification, root: str | None) -> EmailMessage:
        return compose(
            notification, self._template, sender=self._sender, to=self._to, root=root,
            domain=self._domain,
        )  # fmt: skip

    def _deliver(self, mail: bytes) -> None:
        server = self._server
        with deadlines.Deadline(server.deadline) as send:
            try:
                smtp = self._connect(server)
                send.uses(smtp)
                try:
                    _log_in(smtp, server)
                    smtp.sendmail(self._sender, self._to, mail)
                finally:
                    _quit(smtp)
            except (smtplib.SMTPException, OSError) as err:
                raise failure_for_smtp(err, expired=send.expired) from None


def _connected(server: SmtpServer) -> smtplib.SMTP:
    if server.security == "tls":
        return smtplib.SMTP_SSL(
            server.host, server.port, timeout=server.timeout, context=server.tls
        )
    smtp = smtplib.SMTP(server.host, server.port, timeout=server.timeout)
    if server.security == "starttls":
        smtp.starttls(context=server.tls)
    return smtp


def _log_in(smtp: smtplib.SMTP, server: SmtpServer) -> None:
    """AUTH PLAIN where offered (over TLS only: the config requires it), else what smtplib picks.

    One mechanism: smtplib's ``login`` tries the next after a refusal, and a server that
    hangs up on the second try made a wrong password look like a network failure.
    """
    if server.username is None or server.password is None:
        return
    smtp.ehlo_or_helo_if_needed()
    if "plain" in smtp.esmtp_features.get("auth", "").lower().split():
        smtp.user, smtp.password = server.username, server.password
        smtp.auth("PLAIN", smtp.auth_plain)
    else:
        smtp.login(server.username, server.password)


def _quit(smtp: smtplib.SMTP) -> None:
    try:
        smtp.quit()
    except (smtplib.SMTPException, OSError):
        smtp.close()
