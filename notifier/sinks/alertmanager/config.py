"""``type: alertmanager``: alerts posted to every Alertmanager of a cluster (as Prometheus does)."""

from __future__ import annotations

import re
from typing import Literal, Self

from pydantic import Field, SecretStr, field_validator, model_validator

from notifier.sinks.settings import DeliveryOptions, HttpSettings, SinkConfigBase, secret_pair

_LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]{0,127}")


class AlertmanagerDeliveryOptions(DeliveryOptions):
    concurrency: int = Field(default=2, ge=1, le=32)


class AlertmanagerSinkConfig(SinkConfigBase, HttpSettings):
    type: Literal["alertmanager"]
    # Each Alertmanager of the cluster (alerts are not gossiped between peers: each gets all),
    # as its base URL: http://alertmanager-0.monitoring:9093 ; /api/v2/alerts is added.
    urls: list[str] = Field(min_length=1, max_length=16)
    bearer_token: SecretStr | None = None
    bearer_token_file: str | None = None
    labels: dict[str, str] = {}  # on every alert of this sink (team, environment, ...)
    # Alertmanager ends an alert not heard of for its resolve_timeout (5m by default):
    # what is still firing is sent again this often, from the state file after a restart.
    resend_interval_seconds: float = Field(default=60.0, ge=1.0, le=3600.0)
    template_parts = ("summary", "description", "generator_url")
    template: dict[str, str] = {}
    delivery: AlertmanagerDeliveryOptions = AlertmanagerDeliveryOptions()

    @field_validator("labels")
    @classmethod
    def _label_names(cls, value: dict[str, str]) -> dict[str, str]:
        for name in value:
            if not _LABEL_NAME.fullmatch(name):
                raise ValueError(f"invalid label name {name!r}: expected [a-zA-Z_][a-zA-Z0-9_]*")
        return value

    @model_validator(mode="after")
    def _one_token_source(self) -> Self:
        secret_pair(self.bearer_token, self.bearer_token_file, "bearer_token", required=False)
        return self
