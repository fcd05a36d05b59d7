"""The console sink: a notification's text on stdout, at most ``max_lines`` lines."""

from __future__ import annotations

import sys
import threading
from typing import TextIO

from notifier.notifications import Facts, Notification
from notifier.sinks import lines
from notifier.sinks.base import Capabilities, SendError
from notifier.sinks.rendering import Part, ReceiverTemplate
from notifier.text import without_controls


def console_text(facts: Facts) -> str:
    found = [*lines.detail_lines(facts), *lines.member_lines(facts), *lines.context_lines(facts)]
    return "\n".join([lines.headline(facts), *found])


PARTS = {"text": Part(console_text)}


class ConsoleSink:
    def __init__(
        self,
        name: str,
        *,
        max_lines: int = 3,
        stream: TextIO | None = None,
        template: ReceiverTemplate | None = None,
    ) -> None:
        self._name = name
        self._template = template or ReceiverTemplate(name, PARTS, {})
        self._max_lines = max_lines
        self._stream = stream
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._name

    @property
    def integration(self) -> str:
        return "console"

    @property
    def capabilities(self) -> Capabilities:
        return Capabilities(resolve=True)  # a resolution is a line like any other

    def preview(self, notification: Notification) -> str:
        return self._shown(notification)

    def send(self, notification: Notification) -> None:
        shown = self._shown(notification)
        stream = self._stream if self._stream is not None else sys.stdout
        try:
            with self._lock:
                stream.write(shown)
                stream.flush()
        except (OSError, ValueError) as err:  # closed pipe or closed stream
            raise SendError("write_error", retryable=False, detail=type(err).__name__) from None

    def close(self) -> None:
        return None

    def _shown(self, notification: Notification) -> str:
        text = self._template.render("text", notification.facts)
        return "".join(f"[{self._name}] {line}\n" for line in self._lines(text))

    def _lines(self, text: str) -> list[str]:
        # Object content could drive the terminal (ANSI escapes, BEL): shown without them.
        found = [line for line in without_controls(text).splitlines() if line.strip()] or [""]
        if len(found) <= self._max_lines:
            return found
        *kept, last = found[: self._max_lines]
        return [*kept, f"{last} … (+{len(found) - self._max_lines} more lines)"]
