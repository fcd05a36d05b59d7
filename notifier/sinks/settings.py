"""What every sink's config shares: its name, delivery options, HTTP settings and secrets.

Each receiver's own model (``notifier/sinks/<type>/config.py``) builds on these;
the receivers whose message is a title and a text share ``ChatSinkConfigBase``.
"""

from __future__ import annotations

from typing import Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

_MOVED = (
    "a rule's template parts moved to the sinks: 'text' to a console or slack sink, "
    "'blocks' to a slack sink, 'payload' to a webhook sink (docs/receivers.md)"
)


class Strict(BaseModel):
    """Built on first use: a receiver's settings are validated as a member of the ``Config``'s
    union of sinks, so the bases and each type's own validator are never built at import
    (those instantiated as defaults, ``DeliveryOptions()``, are built then)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


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


def secret_pair(value: SecretStr | None, file: str | None, field: str, *, required: bool) -> None:
    if value is not None and file is not None:
        raise ValueError(f"set either {field} or {field}_file, not both")
    if required and value is None and file is None:
        raise ValueError(f"{field} or {field}_file is required")


class SinkConfigBase(Strict):
    name: str = Field(min_length=1, pattern=r"^[a-z0-9]([a-z0-9_-]*[a-z0-9])?$")
    enabled: bool = True
    delivery: DeliveryOptions = DeliveryOptions()  # a receiver's own defaults in its subclass
    # The parts of its message a ``template:`` may replace (its receiver's ``PARTS``, a test
    # checks): another part is refused at load, where it is written.
    template_parts: ClassVar[tuple[str, ...]] = ()

    @field_validator("template", mode="after", check_fields=False)
    @classmethod
    def _known_parts(cls, template: dict[str, Any]) -> dict[str, Any]:
        for part in template:
            if part not in cls.template_parts:
                moved = f"; {_MOVED}" if part in ("text", "blocks", "payload") else ""
                known = ", ".join(cls.template_parts)
                raise ValueError(f"unknown part {part!r}: this receiver's are {known}{moved}")
        return template

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


class ChatDeliveryOptions(DeliveryOptions):
    concurrency: int = Field(default=2, ge=1, le=32)


class ChatSinkConfigBase(SinkConfigBase, HttpSettings):
    """A receiver whose message is a ``title`` and a ``text`` (``notifier.sinks.chat``)."""

    template_parts = ("title", "text")
    template: dict[str, str] = {}
    delivery: ChatDeliveryOptions = ChatDeliveryOptions()


class WebhookUrlConfigBase(ChatSinkConfigBase):
    """A receiver reached at a secret URL (Teams, Discord, Google Chat, Mattermost)."""

    url: SecretStr | None = None
    url_file: str | None = None

    @model_validator(mode="after")
    def _one_url_source(self) -> Self:
        secret_pair(self.url, self.url_file, "url", required=True)
        return self
