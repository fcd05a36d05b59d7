"""``type: opsgenie``'s settings under ``sinks:``."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import SecretStr, model_validator

from notifier.sinks.settings import ChatSinkConfigBase, secret_pair


class OpsgenieSinkConfig(ChatSinkConfigBase):
    type: Literal["opsgenie"]
    api_key: SecretStr | None = None
    api_key_file: str | None = None
    api_url: str = "https://api.opsgenie.com"  # https://api.eu.opsgenie.com in the EU

    @model_validator(mode="after")
    def _one_key_source(self) -> Self:
        secret_pair(self.api_key, self.api_key_file, "api_key", required=True)
        return self
