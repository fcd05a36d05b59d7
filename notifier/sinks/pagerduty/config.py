"""``type: pagerduty``'s settings under ``sinks:``."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import SecretStr, model_validator

from notifier.sinks.settings import ChatSinkConfigBase, secret_pair


class PagerDutySinkConfig(ChatSinkConfigBase):
    type: Literal["pagerduty"]
    routing_key: SecretStr | None = None  # the integration key of a service
    routing_key_file: str | None = None
    url: str = "https://events.pagerduty.com/v2/enqueue"

    @model_validator(mode="after")
    def _one_key_source(self) -> Self:
        secret_pair(self.routing_key, self.routing_key_file, "routing_key", required=True)
        return self
