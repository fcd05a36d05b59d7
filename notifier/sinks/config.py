"""Sink settings as they appear under ``sinks:`` in the config file.

Each sink type owns its model; this module joins them into one union,
told apart by ``type``. Unknown keys are errors (``extra="forbid"``).

Secrets (``url``, ``token``, ``webhook_url``, ``hmac_secret``) are
``SecretStr``: already expanded from ``${ENV}`` by the config loader, or
read from the matching ``*_file`` when the sink is built. Either form is
accepted, never both. ``SecretStr`` keeps them out of reprs and logs.

Every sink carries ``delivery:`` options (queue size, concurrency, retry
limits, pacing) that the delivery stage reads; sinks themselves never retry.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator

from notifier.notifications import ALL_FORMS, MessageForm


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DeliveryOptions(_Strict):
    """How the delivery stage treats one sink's notifications."""

    concurrency: int = Field(default=2, ge=1, le=32)
    queue_size: int = Field(default=1000, ge=1, le=1_000_000)
    max_attempts: int = Field(default=15, ge=1)
    max_age_seconds: float = Field(default=3600.0, gt=0)
    backoff_initial_seconds: float = Field(default=1.0, gt=0)
    backoff_max_seconds: float = Field(default=120.0, gt=0)
    max_retry_after_seconds: float = Field(default=600.0, gt=0)
    min_interval_seconds: float = Field(default=0.0, ge=0)
    # A send in flight longer than this is reported stuck (/readyz, a metric, a log line).
    stuck_after_seconds: float = Field(default=60.0, gt=0)


# Per-type defaults live in subclasses so that a partial ``delivery:`` block
# in the config file keeps the type's other defaults.
class ConsoleDeliveryOptions(DeliveryOptions):
    concurrency: int = Field(default=1, ge=1, le=32)


class WebhookDeliveryOptions(DeliveryOptions):
    concurrency: int = Field(default=4, ge=1, le=32)


class SlackDeliveryOptions(DeliveryOptions):
    concurrency: int = Field(default=1, ge=1, le=32)
    # Slack accepts about one message per second per channel.
    min_interval_seconds: float = Field(default=1.0, ge=0)


def _secret_pair(value: SecretStr | None, file: str | None, field: str, *, required: bool) -> None:
    if value is not None and file is not None:
        raise ValueError(f"set either {field} or {field}_file, not both")
    if required and value is None and file is None:
        raise ValueError(f"{field} or {field}_file is required")


class _SinkConfigBase(_Strict):
    name: str = Field(min_length=1, pattern=r"^[a-z0-9]([a-z0-9_-]*[a-z0-9])?$")
    enabled: bool = True
    # The message forms this sink sends (text is always rendered: it is every
    # sink's fallback); a rule renders only what its sinks send.
    forms: ClassVar[frozenset[MessageForm]] = ALL_FORMS

    @property
    def pacing_group(self) -> str:
        """Sinks in the same group share one pace (and one Retry-After hold)."""
        return self.name


class ConsoleSinkConfig(_SinkConfigBase):
    forms: ClassVar[frozenset[MessageForm]] = frozenset({"text"})
    type: Literal["console"]
    max_lines: int = Field(default=3, ge=1, le=100)
    delivery: ConsoleDeliveryOptions = ConsoleDeliveryOptions()


class HttpSettings(_Strict):
    """How a sink reaches its receiver over HTTP: shared by every HTTP sink's config."""

    # None: HTTPS_PROXY / HTTP_PROXY from the environment unless NO_PROXY names the
    # host; "direct": no proxy whatever the environment says; else the proxy's URL.
    proxy: str | None = None
    tls_verify: bool = True
    ca_file: str | None = None
    client_cert_file: str | None = None  # mTLS: the certificate (PEM) we present
    client_key_file: str | None = None  # its key, when not in the certificate file
    connect_timeout_seconds: float = Field(default=3.0, gt=0)
    read_timeout_seconds: float = Field(default=10.0, gt=0)
    # One bound on a whole send (connect, write, read), whatever the receiver trickles.
    deadline_seconds: float = Field(default=30.0, gt=0)

    @model_validator(mode="after")
    def _key_needs_a_certificate(self) -> Self:
        if self.client_key_file is not None and self.client_cert_file is None:
            raise ValueError("client_key_file needs client_cert_file")
        return self


class WebhookSinkConfig(_SinkConfigBase, HttpSettings):
    forms: ClassVar[frozenset[MessageForm]] = frozenset({"text", "payload"})
    type: Literal["webhook"]
    url: SecretStr | None = None
    url_file: str | None = None
    # Where resolutions go when the receiver closes elsewhere than it opens (Opsgenie): same
    # scheme, host and port as url; "{fingerprint}" is replaced by the resolution's.
    resolved_url: str | None = None
    format: Literal["json", "cloudevents"] = "json"
    cloudevents_source: str = "kube-notifier"
    cloudevents_type: str = "io.kube-notifier.notification"
    headers: dict[str, str] = {}
    hmac_secret: SecretStr | None = None
    hmac_secret_file: str | None = None
    delivery: WebhookDeliveryOptions = WebhookDeliveryOptions()

    @model_validator(mode="after")
    def _one_source_per_secret(self) -> Self:
        _secret_pair(self.url, self.url_file, "url", required=True)
        _secret_pair(self.hmac_secret, self.hmac_secret_file, "hmac_secret", required=False)
        return self


class SlackSinkConfig(_SinkConfigBase):
    """Either a bot ``token`` plus ``channel`` (chat.postMessage, threads possible)
    or an incoming ``webhook_url`` (its channel is fixed by Slack, no threads)."""

    forms: ClassVar[frozenset[MessageForm]] = frozenset({"text", "blocks"})
    type: Literal["slack"]
    channel: str | None = None
    token: SecretStr | None = None
    token_file: str | None = None
    webhook_url: SecretStr | None = None
    webhook_url_file: str | None = None
    base_url: str = "https://slack.com/api/"
    timeout_seconds: float = Field(default=10.0, gt=0)
    proxy: str | None = None  # as a webhook's: None from the environment, "direct" for none
    threads: bool = True
    delivery: SlackDeliveryOptions = SlackDeliveryOptions()

    @property
    def uses_bot_token(self) -> bool:
        return self.token is not None or self.token_file is not None

    @property
    def pacing_group(self) -> str:
        return f"slack:{self.channel}" if self.uses_bot_token else f"slack:{self.name}"

    @model_validator(mode="after")
    def _one_way_to_post(self) -> Self:
        _secret_pair(self.token, self.token_file, "token", required=False)
        _secret_pair(self.webhook_url, self.webhook_url_file, "webhook_url", required=False)
        has_webhook = self.webhook_url is not None or self.webhook_url_file is not None
        if self.uses_bot_token == has_webhook:
            raise ValueError("set exactly one of token (with channel) or webhook_url")
        if self.uses_bot_token and not self.channel:
            raise ValueError("channel is required with a bot token")
        return self


SinkConfig = Annotated[
    ConsoleSinkConfig | WebhookSinkConfig | SlackSinkConfig, Field(discriminator="type")
]
