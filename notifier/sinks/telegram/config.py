"""``type: telegram``'s settings under ``sinks:``."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import SecretStr, model_validator

from notifier.sinks.settings import ChatSinkConfigBase, secret_pair


class TelegramSinkConfig(ChatSinkConfigBase):
    type: Literal["telegram"]
    bot_token: SecretStr | None = None
    bot_token_file: str | None = None
    chat_id: str  # a number, or @channelname
    api_url: str = "https://api.telegram.org"

    @model_validator(mode="after")
    def _one_token_source(self) -> Self:
        secret_pair(self.bot_token, self.bot_token_file, "bot_token", required=True)
        return self
