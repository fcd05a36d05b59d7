"""Building a console sink from its config."""

from __future__ import annotations

from notifier.sinks.console.config import ConsoleSinkConfig
from notifier.sinks.console.sink import PARTS, ConsoleSink
from notifier.sinks.rendering import ReceiverTemplate


def build_console(config: ConsoleSinkConfig) -> ConsoleSink:
    template = ReceiverTemplate(config.name, PARTS, config.template)
    return ConsoleSink(config.name, max_lines=config.max_lines, template=template)
