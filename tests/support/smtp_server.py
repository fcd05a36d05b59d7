"""A real SMTP server on 127.0.0.1 for tests (aiosmtpd): STARTTLS or TLS, AUTH, stored mail.

``SmtpServer(tls=..., implicit_tls=False, users={"alice": "pw"})`` starts on a free
port in its own thread; ``mails()`` are the messages it accepted, parsed;
``refuse_recipients(code)`` makes it answer RCPT with ``code`` (451: later, 550: never).
Stopped by ``stop()`` or leaving the ``with`` block.
"""

from __future__ import annotations

import email
import email.policy
import socket
import ssl
import sys
import threading
from email.message import EmailMessage
from types import TracebackType
from typing import Any, Self

from aiosmtpd import smtp as aiosmtp
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, Envelope, LoginPassword, Session


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class _Mailbox:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.raw: list[bytes] = []
        self.refusal: str | None = None

    async def handle_RCPT(  # noqa: N802 - aiosmtpd's hook name
        self, server: aiosmtp.SMTP, session: Session, envelope: Envelope, address: str,
        options: list[str],
    ) -> str:  # fmt: skip
        if self.refusal is not None:
            return self.refusal
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(  # noqa: N802 - aiosmtpd's hook name
        self, server: aiosmtp.SMTP, session: Session, envelope: Envelope
    ) -> str:
        content = envelope.original_content or b""
        with self.lock:
            self.raw.append(content)
        return "250 Message accepted for delivery"


class SmtpServer:
    def __init__(
        self,
        *,
        tls: ssl.SSLContext | None = None,
        implicit_tls: bool = False,
        users: dict[str, str] | None = None,
    ) -> None:
        self.port = free_port()
        self._mailbox = _Mailbox()
        self._users = users or {}
        options: dict[str, Any] = {"hostname": "127.0.0.1", "port": self.port}
        if implicit_tls:
            options["ssl_context"] = tls
        elif tls is not None:
            options.update(tls_context=tls, require_starttls=True)
        if self._users:
            # Over implicit TLS aiosmtpd does not know the session is encrypted.
            options.update(authenticator=self._authenticate, auth_require_tls=not implicit_tls)
        self._controller = Controller(self._mailbox, **options)

    def __enter__(self) -> Self:
        self._controller.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def stop(self) -> None:
        self._controller.stop()

    def refuse_recipients(self, code: int | None) -> None:
        self._mailbox.refusal = None if code is None else f"{code} not now or not here"

    def mails(self) -> list[EmailMessage]:
        with self._mailbox.lock:
            raw = list(self._mailbox.raw)
        return [email.message_from_bytes(data, policy=email.policy.default) for data in raw]

    def _authenticate(
        self, server: aiosmtp.SMTP, session: Session, envelope: Envelope, mechanism: str,
        auth_data: Any,
    ) -> AuthResult:  # fmt: skip
        if not isinstance(auth_data, LoginPassword):
            return AuthResult(success=False, handled=False)
        login, password = auth_data.login.decode(), auth_data.password.decode()
        return AuthResult(success=self._users.get(login) == password, handled=False)


def main() -> None:
    """``python -m tests.support.smtp_server``: a plain SMTP server (no TLS, no AUTH) for the
    notification bench, in its own process; prints its port, stops when stdin closes."""
    with SmtpServer() as server:
        print(server.port, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
