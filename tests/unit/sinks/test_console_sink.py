from __future__ import annotations

import io

import pytest

from notifier.sinks.base import SendError
from notifier.sinks.console.sink import PARTS, ConsoleSink
from notifier.sinks.rendering import ReceiverTemplate
from tests.unit.sinks.factories import notification


def printed(summary: str, *details: tuple[str, str], max_lines: int = 3) -> str:
    stream = io.StringIO()
    facts = {"details": [list(pair) for pair in details]}
    sent = notification(text=summary, facts=facts)
    ConsoleSink("console", max_lines=max_lines, stream=stream).send(sent)
    return stream.getvalue()


def test_one_line_per_notification_prefixed_with_the_sink() -> None:
    assert printed("web-1 is CrashLoopBackOff") == "[console] web-1 is CrashLoopBackOff\n"


def test_the_details_are_a_line_each_and_the_context_follows() -> None:
    context = {"owners": ["ReplicaSet/web-1a", "Deployment/web"]}
    sent = notification(text="web-1 crashed", facts={"details": [["Reason", "OOMKilled"]],
                                                     "context": context})  # fmt: skip
    stream = io.StringIO()
    ConsoleSink("console", stream=stream).send(sent)
    assert stream.getvalue() == (
        "[console] web-1 crashed\n[console] Reason: OOMKilled\n"
        "[console] Owners: ReplicaSet/web-1a -> Deployment/web\n"
    )


def test_long_text_keeps_max_lines_and_counts_the_rest() -> None:
    details = [(f"line {n}", "x") for n in range(1, 8)]

    assert printed("title", *details, max_lines=2) == (
        "[console] title\n[console] line 1: x … (+6 more lines)\n"
    )


def test_a_template_of_its_own_is_its_text() -> None:
    template = ReceiverTemplate("console", PARTS, {"text": "{{ severity | upper }} {{ summary }}"})
    stream = io.StringIO()
    ConsoleSink("console", stream=stream, template=template).send(notification(text="web-1 died"))
    assert stream.getvalue() == "[console] CRITICAL web-1 died\n"


def test_a_closed_stream_is_a_permanent_error() -> None:
    stream = io.StringIO()
    stream.close()

    with pytest.raises(SendError) as raised:
        ConsoleSink("console", stream=stream).send(notification())

    assert (raised.value.reason, raised.value.retryable) == ("write_error", False)
