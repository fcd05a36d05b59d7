"""``type: console``'s settings under ``sinks:``."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from notifier.sinks.settings import DeliveryOptions, SinkConfigBase


class ConsoleDeliveryOptions(DeliveryOptions):
    concurrency: int = Field(default=1, ge=1, le=32)


class ConsoleSinkConfig(SinkConfigBase):
    template_parts = ("text",)
    type: Literal["console"]
    max_lines: int = Field(default=3, ge=1, le=100)
    template: dict[str, str] = {}  # parts: text
    delivery: ConsoleDeliveryOptions = ConsoleDeliveryOptions()
