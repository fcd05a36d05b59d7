"""What every sink's config shares: its name, delivery options, HTTP settings and secrets.

Each receiver's own model (``notifier/sinks/<type>/config.py``, or
``sinks/config.py`` for the first three) builds on these.
"""

from __future__ import annotations

from typing import ClassVar, Self

from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator

from notifier.notifications import ALL_FORMS, MessageForm


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DeliveryOptions(Strict):
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


def secret_pair(value: SecretStr | None, file: str | None, field: str, *, required: bool) -> None:
    if value is not None and file is not None:
        raise ValueError(f"set either {field} or {field}_file, not both")
    if required and value is None and file is None:
        raise ValueError(f"{field} or {field}_file is required")


class SinkConfigBase(Strict):
    name: str = Field(min_length=1, pattern=r"^[a-z0-9]([a-z0-9_-]*[a-z0-9])?$")
    enabled: bool = True
    # The message forms this sink sends (text is always rendered: it is every
    # sink's fallback); a rule renders only what its sinks send.
    forms: ClassVar[frozenset[MessageForm]] = ALL_FORMS

    def message_forms(self) -> frozenset[MessageForm]:
        """What the rules render for this sink (``forms``, plus facts when it renders itself)."""
        return self.forms

    @property
    def pacing_group(self) -> str:
        """Sinks in the same group share one pace (and one Retry-After hold)."""
        return self.name


class HttpSettings(Strict):
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
