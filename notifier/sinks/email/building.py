"""Building an email sink from its config (imported only when one is configured)."""

from __future__ import annotations

import ssl

from notifier.sinks.email.config import EmailSinkConfig
from notifier.sinks.email.messages import PARTS
from notifier.sinks.email.sink import EmailSink, SmtpServer
from notifier.sinks.rendering import ReceiverTemplate
from notifier.sinks.secrets import SinkBuildError, read_secret, tls_of
from notifier.sinks.thread_roots import ThreadStore
from notifier.sinks.transport import tls_context


def build_email(config: EmailSinkConfig, threads: ThreadStore) -> EmailSink:
    name = config.name
    password = read_secret(name, "password", config.password, config.password_file)
    try:
        tls = tls_context(tls_of(config))
    except (OSError, ssl.SSLError) as err:
        files = f"ca_file {config.ca_file!r}, client_cert_file {config.client_cert_file!r}"
        raise SinkBuildError(f"sink {name!r}: cannot use its TLS files ({files}): {err}") from None
    server = SmtpServer(
        config.host, config.port, config.security, tls, config.username, password,
        timeout=config.timeout_seconds, deadline=config.deadline_seconds,
    )  # fmt: skip
    template = ReceiverTemplate(name, PARTS, config.template)
    return EmailSink(
        name, server, sender=config.from_address, to=list(config.to), template=template,
        threads=threads,
    )  # fmt: skip
