"""``WebhookSink``: one POST per notification, through ``transport`` (libcurl, one deadline).

Every request carries ``Idempotency-Key: <notification id>`` (a retried or
re-sent notification keeps its key, so receivers can drop repeats), the
configured custom headers and, with an HMAC secret, the signature headers
described in ``signing``. TLS certificates are verified unless the config
turns it off; ``ca_file`` replaces the system CA bundle and a client
certificate may be presented (mTLS). Proxies as ``transport`` says.
Redirects are not followed. Up to ``pool_size`` idle connections are kept,
one per delivery thread. Thread-safe.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import msgspec

from notifier import __version__
from notifier.notifications import Notification
from notifier.sinks.answers import Sent
from notifier.sinks.base import Capabilities
from notifier.sinks.rendering import ReceiverTemplate
from notifier.sinks.secrets import redact_url
from notifier.sinks.showing import shown
from notifier.sinks.transport import Tls, Transport
from notifier.sinks.webhook.bodies import BodyFormat, CloudEventsIdentity, wrapped
from notifier.sinks.webhook.failures import failure_for_exception, failure_for_status
from notifier.sinks.webhook.payload import PARTS
from notifier.sinks.webhook.signing import SIGNATURE_HEADER, TIMESTAMP_HEADER, sign

log = logging.getLogger(__name__)
FINGERPRINT = "{fingerprint}"

_DEFAULT_CLOUDEVENTS = CloudEventsIdentity("kube-notifier", "io.kube-notifier.notification")


@dataclass(frozen=True, slots=True)
class WebhookTarget:
    """Where and how to POST; ``url`` and ``hmac_secret`` are secrets."""

    url: str = field(repr=False)
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    hmac_secret: bytes | None = field(default=None, repr=False)
    body_format: BodyFormat = "json"
    cloudevents: CloudEventsIdentity = _DEFAULT_CLOUDEVENTS
    tls_verify: bool = True
    ca_file: str | None = None
    client_cert_file: str | None = None
    client_key_file: str | None = None
    connect_timeout: float = 3.0
    read_timeout: float = 10.0
    deadline: float = 30.0
    proxy: str | None = None  # None: from the environment; "direct": none
    resolved_url: str | None = None  # resolutions go here; "{fingerprint}" filled in


class WebhookSink:
    def __init__(
        self,
        name: str,
        target: WebhookTarget,
        *,
        pool_size: int = 4,
        clock: Callable[[], float] = time.time,
        template: ReceiverTemplate | None = None,
    ) -> None:
        self._name = name
        self._template = template or ReceiverTemplate(name, PARTS, {})
        self._target = target
        self._clock = clock
        self._shown_as = redact_url(target.url)
        self._transport = _transport_for(target, pool_size)
        if not target.tls_verify:
            log.warning("sink %s: TLS certificate verification is off for %s", name, self._shown_as)

    @property
    def name(self) -> str:
        return self._name

    @property
    def integration(self) -> str:
        return "webhook"

    @property
    def capabilities(self) -> Capabilities:
        # A resolution is its own payload (status "resolved"), at resolved_url when set.
        return Capabilities(resolve=True)

    def preview(self, notification: Notification) -> str:
        return shown(self._body(notification)[0])

    def send(self, notification: Notification) -> None:
        shaped, content_type = self._body(notification)
        body = msgspec.json.encode(shaped)
        headers = self._headers(notification, body, content_type)
        try:
            reply = self._transport.post(body, headers, url=self._url_for(notification))
        except Exception as err:
            raise failure_for_exception(err, self._shown_as) from None
        sent = Sent(self._transport.url, headers, body)
        failure = failure_for_status(
            reply.status, reply.retry_after, now=self._clock(), body=reply.body, sent=sent
        )
        if failure is not None:
            raise failure

    def close(self) -> None:
        self._transport.close()

    def _body(self, notification: Notification) -> tuple[dict[str, Any], str]:
        payload = self._template.render("payload", notification.facts)
        target = self._target
        return wrapped(notification, payload, target.body_format, target.cloudevents)

    def _url_for(self, notification: Notification) -> str | None:
        """The resolved_url for a resolution, else None (the sink's url)."""
        template = self._target.resolved_url
        if template is None or not notification.resolves:
            return None
        return template.replace(FINGERPRINT, quote(notification.fingerprint, safe=""))

    def _headers(
        self, notification: Notification, body: bytes, content_type: str
    ) -> dict[str, str]:
        headers = {
            **self._target.headers,
            "Content-Type": content_type,
            "User-Agent": f"kube-notifier/{__version__}",
            "Idempotency-Key": notification.id,
        }
        if self._target.hmac_secret is not None:
            timestamp = str(int(self._clock()))
            headers[TIMESTAMP_HEADER] = timestamp
            headers[SIGNATURE_HEADER] = sign(self._target.hmac_secret, timestamp, body)
        return headers


def _transport_for(target: WebhookTarget, pool_size: int) -> Transport:
    """Raises ``BadUrlError`` for a URL it cannot post to, ``OSError`` or ``ssl.SSLError`` for a
    CA or client certificate file it cannot use: config errors, found when the sink is built."""
    tls = Tls(
        verify=target.tls_verify,
        ca_file=target.ca_file,
        client_cert=target.client_cert_file,
        client_key=target.client_key_file,
    )
    return Transport(
        target.url,
        connect_timeout=target.connect_timeout,
        read_timeout=target.read_timeout,
        deadline=target.deadline,
        tls=tls,
        max_idle=pool_size,
        proxy=target.proxy,
    )
