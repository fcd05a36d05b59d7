from __future__ import annotations

import io

import pytest

from notifier.sinks.base import SendError
from notifier.sinks.console import ConsoleSink
from tests.unit.sinks.factories import notification


def printed(text: str, max_lines: int = 3) -> str:
    stream = io.StringIO()
    ConsoleSink("console", max_lines=max_lines, stream=stream).send(notification(text=text))
    return stream.getvalue()


def test_one_line_per_notification_prefixed_with_the_sink() -> None:
    assert printed("web-1 is CrashLoopBackOff") == "[console] web-1 is CrashLoopBackOff\n"


def test_long_text_keeps_max_lines_and_counts_the_rest() -> None:
    text = "\n".join(f"line {n}" for n in range(1, 8))

    assert printed(text, max_lines=2) == "[console] line 1\n[console] line 2 … (+5 more lines)\n"


def test_blank_lines_are_skipped() -> None:
    assert printed("a\n\n  \nb") == "[console] a\n[console] b\n"


def test_a_closed_stream_is_a_permanent_error() -> None:
    stream = io.StringIO()
    stream.close()

    with pytest.raises(SendError) as raised:
        ConsoleSink("console", stream=stream).send(notification())

    assert (raised.value.reason, raised.value.retryable) == ("write_error", False)
