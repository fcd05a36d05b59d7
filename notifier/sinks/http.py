"""What the HTTP receivers share: a ``Transport`` built from ``HttpSettings``, and one POST.

``http_transport`` turns a sink's HTTP settings (proxy, TLS, mTLS, timeouts,
deadline) into a ``Transport`` and a file or URL it cannot use into a
``SinkBuildError`` at load. ``post`` sends one body and turns what went
wrong into a ``SendError`` as the webhook sink classifies it; neither the
URL nor a secret header appears in what it says.
"""

from __future__ import annotations

import logging
import ssl
import time
from collections.abc import Callable

import msgspec

from notifier import __version__
from notifier.sinks.answers import Sent
from notifier.sinks.base import SendError
from notifier.sinks.secrets import SinkBuildError, redact_url, tls_key, tls_of
from notifier.sinks.settings import HttpSettings
from notifier.sinks.transport import MAX_BODY_BYTES, BadUrlError, Reply, Transport
from notifier.sinks.webhook.failures import failure_for_exception, failure_for_status

log = logging.getLogger("notifier.sinks")
USER_AGENT = f"kube-notifier/{__version__}"


def http_transport(
    sink: str,
    settings: HttpSettings,
    url: str,
    *,
    pool_size: int,
    field: str = "url",
    max_body: int = MAX_BODY_BYTES,
) -> Transport:
    """A transport to ``url`` with ``settings``; ``SinkBuildError`` names ``field`` if unusable."""
    try:
        transport = Transport(
            url,
            connect_timeout=settings.connect_timeout_seconds,
            read_timeout=settings.read_timeout_seconds,
            deadline=settings.deadline_seconds,
            tls=tls_of(settings),  # its files checked here, unless they are in the pod
            max_idle=pool_size,
            proxy=settings.proxy,
            max_body=max_body,
        )
    except BadUrlError:
        raise SinkBuildError(
            f"sink {sink!r}: {field} must be an http(s) URL with a host", key=field
        ) from None
    except (OSError, ssl.SSLError) as err:
        files = f"ca_file {settings.ca_file!r}, client_cert_file {settings.client_cert_file!r}"
        raise SinkBuildError(
            f"sink {sink!r}: cannot use its TLS files ({files}): {err}", key=tls_key(settings)
        ) from None
    if not settings.tls_verify:
        log.warning("sink %s: TLS certificate verification is off for %s", sink, redact_url(url))
    return transport


def post(
    transport: Transport,
    body: bytes,
    headers: dict[str, str],
    *,
    clock: Callable[[], float] = time.time,
    url: str | None = None,
) -> Reply:
    """POST ``body``; a 2xx answer is returned, anything else raised as ``SendError``."""
    sent = {"Content-Type": "application/json", "User-Agent": USER_AGENT, **headers}
    try:
        reply = transport.post(body, sent, url=url)
    except Exception as err:
        raise failure_for_exception(err, redact_url(transport.url)) from None
    sent_to = transport.url if url is None else url
    failure = failure_for_status(
        reply.status, reply.retry_after, now=clock(), body=reply.body,
        sent=Sent(sent_to, sent, body),
    )  # fmt: skip
    if failure is not None and failure.retryable and failure.retry_after is None:
        failure.retry_after = _retry_after_in(reply.body)
    if failure is not None:
        raise failure
    return reply


def _retry_after_in(body: bytes) -> float | None:
    """The wait some services put in the answer instead of a header: Telegram's
    ``parameters.retry_after``, Discord's ``retry_after`` (seconds)."""
    try:
        answer = msgspec.json.decode(body)
    except msgspec.DecodeError:
        return None
    if not isinstance(answer, dict):
        return None
    parameters = answer.get("parameters")
    value = parameters.get("retry_after") if isinstance(parameters, dict) else None
    value = answer.get("retry_after") if value is None else value
    return float(value) if isinstance(value, int | float) and 0 <= value < 86400 else None


def first_failure(errors: list[SendError]) -> SendError:
    """Of several targets' failures, the one to raise: a retryable one if there is one."""
    return next((err for err in errors if err.retryable), errors[0])
