"""The console sink: a notification's text on stdout, for local runs and demos.

Each notification becomes at most ``max_lines`` lines prefixed with the
sink name (blank lines skipped); longer text ends with a count of the
lines left out. Lines from
concurrent sends never interleave.
"""

from __future__ import annotations

import sys
import threading
from typing import TextIO

from notifier.notifications import Notification
from notifier.sinks.base import Capabilities, SendError
from notifier.text import without_controls


class ConsoleSink:
    def __init__(self, name: str, *, max_lines: int = 3, stream: TextIO | None = None) -> None:
        self._name = name
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
        return "".join(
            f"[{self._name}] {line}\n" for line in self._lines(notification.message.text)
        )

    def send(self, notification: Notification) -> None:
        lines = self._lines(notification.message.text)
        stream = self._stream if self._stream is not None else sys.stdout
        try:
            with self._lock:
                stream.write("".join(f"[{self._name}] {line}\n" for line in lines))
                stream.flush()
        except (OSError, ValueError) as err:  # closed pipe or closed stream
            raise SendError("write_error", retryable=False, detail=type(err).__name__) from None

    def close(self) -> None:
        return None

    def _lines(self, text: str) -> list[str]:
        # Object content could drive the terminal (ANSI escapes, BEL): shown without them.
        lines = [line for line in without_controls(text).splitlines() if line.strip()] or [""]
        if len(lines) <= self._max_lines:
            return lines
        *kept, last = lines[: self._max_lines]
        return [*kept, f"{last} … (+{len(lines) - self._max_lines} more lines)"]
