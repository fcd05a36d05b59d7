"""``type: email``: one mail per notification over SMTP, threaded per fingerprint."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import ConfigDict, Field, SecretStr, model_validator

from notifier.sinks.settings import DeliveryOptions, SinkConfigBase, secret_pair

_ADDRESS = r"^[^@\s<>,;]+@[^@\s<>,;]+$"


class EmailDeliveryOptions(DeliveryOptions):
    concurrency: int = Field(default=1, ge=1, le=32)


class EmailSinkConfig(SinkConfigBase):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    type: Literal["email"]
    host: str = Field(min_length=1)
    port: int = Field(default=587, ge=1, le=65535)
    # starttls: plain connection upgraded (587); tls: TLS from the start (465); none: no TLS
    security: Literal["starttls", "tls", "none"] = "starttls"
    username: str | None = None
    password: SecretStr | None = None
    password_file: str | None = None
    from_address: str = Field(alias="from", pattern=_ADDRESS)
    to: list[str] = Field(min_length=1, max_length=100)
    tls_verify: bool = True
    ca_file: str | None = None
    client_cert_file: str | None = None
    client_key_file: str | None = None
    timeout_seconds: float = Field(default=10.0, gt=0)  # each SMTP exchange
    deadline_seconds: float = Field(default=30.0, gt=0)  # the whole send
    template_parts = ("subject", "text", "html")
    template: dict[str, str] = {}
    delivery: EmailDeliveryOptions = EmailDeliveryOptions()

    @model_validator(mode="after")
    def _credentials(self) -> Self:
        secret_pair(self.password, self.password_file, "password", required=False)
        has_password = self.password is not None or self.password_file is not None
        if has_password != (self.username is not None):
            raise ValueError("set username and password (or password_file) together")
        if has_password and self.security == "none":
            raise ValueError("a password is only sent over TLS: set security to starttls or tls")
        for address in self.to:
            if "@" not in address or any(c in address for c in "\r\n<>,;"):
                raise ValueError(f"invalid address in to: {address!r}")
        return self
